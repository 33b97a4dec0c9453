#!/usr/bin/env bash
# Validates the Kubernetes manifests in Examples/kubernetes/ against the Kubernetes API's own
# schemas (batch/v1 Job and the rest) with kubernetes-validate (PyPI), strictly: an unknown or
# misspelt field is an error. Installs it with pip when it is missing (--install only).
#
#   scripts/validate-kubernetes.sh [--install] [-k VERSION]
# Exit status: 0 every manifest is valid; 1 one is not; 77 kubernetes-validate is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
version=1.30.0
install=false
while [ $# -gt 0 ]; do
    case "$1" in
        --install) install=true; shift ;;
        -k) version=$2; shift 2 ;;
        *) echo "usage: $0 [--install] [-k VERSION]" >&2; exit 64 ;;
    esac
done
if ! command -v kubernetes-validate >/dev/null 2>&1; then
    if [ "$install" = true ]; then
        python3 -m pip install --quiet kubernetes-validate >&2
    else
        echo "validate-kubernetes: kubernetes-validate is not installed (scripts/validate-kubernetes.sh --install)" >&2
        exit 77
    fi
fi
kubernetes-validate --strict -k "$version" Examples/kubernetes/*.yaml
