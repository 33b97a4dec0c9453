#!/usr/bin/env bash
# Tries the README's CI recipes on this machine, as far as it allows (no GitHub or GitLab runner):
# both YAML files must parse; their run:/script: lines run in order in a scratch workspace, with
# $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY, ${{ matrix.page }} and $CI_NODE_INDEX/$CI_NODE_TOTAL set
# as the runners set them, on a copy of SampleImages/ as `screenshots/` (split into pages of 6
# images by adding `--per-page 6`, so there are pages to spread); the pages they write must be
# byte-identical to one full run's; so must those of the `xargs -P` and `parallel` lines.
# `apt-get ... &&` prefixes are left out (the packages are installed here). Compare runs with the
# recipe's --markdown/--junit only when this build has them.
#
#   scripts/try-ci-recipes.sh          (after `make build`; needs python3 with PyYAML, jq, parallel)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/masonry-ci-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
ln -s "$root" masonry
cp -r "$root/SampleImages" screenshots
mkdir baseline current
cp "$root"/SampleImages/*.png "$root"/SampleImages/*.jpg baseline/ 2>/dev/null || true
cp baseline/* current/
first=$(ls baseline | head -1); second=$(ls baseline | sed -n 2p)
cp "baseline/$second" "current/$first"
masonry=masonry/.build/release/masonry
mkdir full && "$masonry" screenshots -r --per-page 6 -o full/sheet.png -q

# The README's blocks: the first ```yaml block is GitHub's, the second GitLab's, then the sh lines.
python3 - "$root/README.md" <<'PY' > recipes.sh
import sys, yaml, shlex
text = open(sys.argv[1]).read()
section = text[text.index("## In CI"):]
blocks = [b.split("\n", 1)[1] for b in section.split("```yaml")[1:3]]
blocks = [b[:b.index("```")] for b in blocks]
github, gitlab = (yaml.safe_load(b) for b in blocks)
def strip(line):
    line = line.strip()
    if line.startswith("apt-get"):
        line = "make" + line.split("&& make", 1)[1] if "&& make" in line else ""
    return line.replace("screenshots -r", "screenshots -r --per-page 6")
def runs(job):
    return [strip(s["run"]) for s in job["steps"] if "run" in s]
print("gh_plan() {", *runs(github["jobs"]["plan"]), "}", sep="\n")
print("gh_render() {", *[r.replace("${{ matrix.page }}", "$1") for r in runs(github["jobs"]["render"])], "}", sep="\n")
print("gh_compare() {", *runs(github["jobs"]["compare"]), "}", sep="\n")
print("gl_before() {", *[strip(l) for l in gitlab["before_script"]], "}", sep="\n")
print("gl_render() {", *[strip(l) for l in gitlab["render"]["script"]], "}", sep="\n")
print("gl_compare() {", *[strip(l) for l in gitlab["compare"]["script"]], "}", sep="\n")
print("gl_parallel=%d" % gitlab["render"]["parallel"])
sh = section.split("```sh")[1]
for name, line in zip(["om_plan", "om_xargs", "om_parallel"], sh[:sh.index("```")].strip().split("\n")):
    print(name + "() {", strip(line), "}", sep="\n")
PY
echo "recipes: the YAML of both parses"
if ! "$masonry" compare --help | grep -q -- --markdown; then
    sed -i 's/ --markdown [^ ]*//; s/ --junit [^ ]*//; /summary.md/d' recipes.sh
    echo "compare: this build has no --markdown/--junit yet: run without them"
fi
mkdir bin && ln -s "$root/.build/release/masonry" bin/masonry   # the one-machine lines call masonry on PATH
export PATH=$work/bin:$PATH
source recipes.sh

same() {   # the pages in $1 are the full run's, all of them
    local count=0
    for page in full/*.png; do cmp -s "$page" "$1/$(basename "$page")" || { echo "differs: $1/$(basename "$page")"; exit 1; }
        count=$((count + 1)); done
    echo "$2: $count pages byte-identical to one full run"
}

export GITHUB_OUTPUT=$work/github-output GITHUB_STEP_SUMMARY=$work/step-summary
gh_plan
pages=$(sed -n 's/^pages=//p' "$GITHUB_OUTPUT")
echo "github plan: pages=$pages"
for page in $(echo "$pages" | jq '.[]'); do gh_render "$page"; done
same out "github matrix"
set +e; gh_compare; status=$?; set -e
echo "github compare: exit $status; review/: $(ls review | tr '\n' ' '); step summary: $(wc -c < "$GITHUB_STEP_SUMMARY" 2>/dev/null || echo 0) bytes"
rm -rf out review

gl_before
for node in $(seq 1 "$gl_parallel"); do
    mkdir -p "node$node" && (cd "node$node" && ln -s "$root" masonry && ln -s ../screenshots screenshots &&
        CI_NODE_INDEX=$node CI_NODE_TOTAL=$gl_parallel gl_render)
    mkdir -p out-gitlab && cp "node$node"/out/*.png out-gitlab/
done
same out-gitlab "gitlab parallel: $gl_parallel"
set +e; gl_compare; status=$?; set -e
echo "gitlab compare: exit $status; review/: $(ls review | tr '\n' ' ')"
rm -rf out review

om_plan
om_xargs
same out "xargs -P $(nproc)"
rm out/*.png
om_parallel
same out "GNU parallel"
