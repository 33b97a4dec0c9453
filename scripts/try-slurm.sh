#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this machine, paints a contact sheet through it as one
# job array, checks the pages and the index are byte-identical to a one-machine run, and stops
# the cluster again (issue #32; README "Scale out").
#
#   scripts/try-slurm.sh [--images N] [--pages P] [--max-running M] [--masonry PATH] [--keep]
#     --images       how many pictures to make and sheet [10000]
#     --pages        how many pages (one array task each) [50]
#     --max-running  array tasks at once (sbatch --array=1-P%M) [the CPU count]
#     --masonry      the masonry executable [.build/release/masonry, built when missing]
#     --keep         leave the work folder (logs, plan, pages) for a look; its path is printed
#
# Everything it makes lives in one folder from mktemp: the munge key and socket (munged runs
# with its own socket, not the system's), slurm.conf (the node's real CPU count and memory),
# the daemons' state, spool, logs and pid files, the pictures, the plan, both runs' pages and
# the shared --cache. Nothing is written outside it, no system service is started or stopped,
# and on exit (also on failure or Ctrl-C) the daemons it started are stopped and the folder is
# removed. It refuses to run beside a munged, slurmctld or slurmd that is already running.
#
# Exit status: 0 every task COMPLETED and every file identical; 1 a check failed; 77 Slurm or
# munge is not installed (the test that runs this script reports it as skipped).
set -euo pipefail

images=10000
pages=50
max_running=$(nproc)
masonry=""
keep=false
while [ $# -gt 0 ]; do
    case "$1" in
        --images) images=$2; shift 2 ;;
        --pages) pages=$2; shift 2 ;;
        --max-running) max_running=$2; shift 2 ;;
        --masonry) masonry=$2; shift 2 ;;
        --keep) keep=true; shift ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "try-slurm: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done
if [ $((images % pages)) -ne 0 ] || [ "$pages" -lt 1 ]; then
    echo "try-slurm: --images ($images) must be a multiple of --pages ($pages)" >&2
    exit 64
fi

for tool in munged mungekey slurmctld slurmd sbatch squeue sacct scancel; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
        echo "try-slurm: $tool is not installed (apt-get install slurm-wlm munge, or make test): skipped" >&2
        exit 77
    fi
done
PATH=$PATH:/usr/sbin
for daemon in munged slurmctld slurmd; do
    if pgrep -x "$daemon" >/dev/null; then
        echo "try-slurm: a $daemon is already running here; this script starts and stops its own only" >&2
        exit 1
    fi
done
if [ "$(id -u)" -ne 0 ]; then
    echo "try-slurm: slurmd must run as root to start jobs: run this script as root" >&2
    exit 1
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$masonry" ]; then
    masonry=$repo/.build/release/masonry
    [ -x "$masonry" ] || (cd "$repo" && swift build -c release --product masonry >&2)
fi
masonry=$(cd "$(dirname "$masonry")" && pwd)/$(basename "$masonry")

# Seconds since a `date +%s.%N` stamp, two decimals.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

work=$(mktemp -d /tmp/masonry-slurm-XXXXXX)
chmod 700 "$work"
job=""
cleanup() {
    local status=$?
    [ -n "$job" ] && SLURM_CONF=$work/slurm.conf scancel "$job" >/dev/null 2>&1 || true
    for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
        if [ -s "$pidfile" ]; then
            local pid
            pid=$(cat "$pidfile")
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
        fi
    done
    if [ "$keep" = true ]; then echo "try-slurm: kept $work" >&2; else rm -rf "$work"; fi
    exit $status
}
trap cleanup EXIT INT TERM

# munge: a key of its own, a socket of its own.
mkdir -p "$work/munge"
chmod 700 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 \
    || dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
    --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" --force
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done

# slurm.conf: this node with its real CPU count and memory, state and logs in the work folder.
host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024) - 512 }' /proc/meminfo)
port=$((20000 + RANDOM % 20000))
mkdir -p "$work/state" "$work/spool" "$work/logs"
cat >"$work/slurm.conf" <<EOF
ClusterName=masonry-try
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$work/jobcomp.txt
MaxArraySize=100001
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=try Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
    sinfo -h -o %T 2>/dev/null | grep -qE '^idle' && break
    sleep 0.2
done
if ! sinfo -h -o %T | grep -qE '^idle'; then
    echo "try-slurm: the node did not come up: $(sinfo -h -o '%T %E' 2>&1)" >&2
    tail -5 "$work/slurmctld.log" "$work/slurmd.log" >&2
    exit 1
fi
echo "try-slurm: cluster up: node $host, $cpus CPUs, ${memory} MB, Slurm $(sinfo --version | cut -d' ' -f2)" >&2

# The pictures: seeded sizes, small files, in 10 folders.
python3 - "$work/in" "$images" <<'EOF'
import os, random, struct, sys, zlib
root, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(32)
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
for number in range(count):
    width, height = rng.randint(8, 48), rng.randint(8, 48)
    shade = bytes([rng.randrange(256), rng.randrange(256), rng.randrange(256)])
    rows = b"".join(b"\0" + bytes((shade[c % 3] + x + y) & 255 for x in range(width) for c in range(3)) for y in range(height))
    folder = os.path.join(root, "part%02d" % (number % 10))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "img%05d.png" % number), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
EOF

per_page=$((images / pages))
layout=(-r ../in -o s.png --manifest s.json --html s.html -w 800 -c 8 --page-height 0 --per-page "$per_page" --caption '{name}')
mkdir -p "$work/reference" "$work/cluster" "$work/cache" "$work/times"
start=$(date +%s.%N)
(cd "$work/reference" && "$masonry" "${layout[@]}" -q)
one_machine=$(since "$start")
echo "try-slurm: one-machine run: $pages pages of $images images in ${one_machine} s" >&2

start=$(date +%s.%N)
(cd "$work/cluster" && "$masonry" "${layout[@]}" --plan-only --plan s.mplan -q && rm s.json s.html)
planning=$(since "$start")
echo "try-slurm: planned in ${planning} s: $(stat -c %s "$work/cluster/s.mplan") bytes" >&2

cat >"$work/task.sh" <<EOF
#!/bin/sh
# One array task: page \$SLURM_ARRAY_TASK_ID of the plan, with the shared cache.
start=\$(date +%s.%N)
"$masonry" --from-plan s.mplan --page "\$SLURM_ARRAY_TASK_ID" --cache "$work/cache" -j 1 -q
status=\$?
awk -v id="\$SLURM_ARRAY_TASK_ID" -v a="\$start" -v b="\$(date +%s.%N)" -v s="\$status" \\
    'BEGIN { printf "%s %.2f %s\\n", id, b - a, s }' >"$work/times/\$SLURM_ARRAY_TASK_ID"
exit \$status
EOF
chmod +x "$work/task.sh"
start=$(date +%s.%N)
job=$(sbatch --parsable --array="1-$pages%$max_running" --cpus-per-task=1 --job-name=masonry-pages \
    --chdir="$work/cluster" --output="$work/logs/task-%a.out" "$work/task.sh")
echo "try-slurm: submitted job array $job: tasks 1-$pages, at most $max_running at once" >&2
for _ in $(seq 36000); do
    [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
    sleep 0.1
done
total=$(since "$start")

# sacct over the job completion records (jobcomp/filetxt: no slurmdbd needed) of this cluster,
# which ran nothing else: every task must say COMPLETED. (Slurm 22.05's filetxt reader warns
# about the array fields it does not parse; the warnings go to /dev/null.)
states=$(sacct --completion -a -n -P -o JobID,JobName,State,Elapsed 2>/dev/null | grep '|masonry-pages|' || true)
completed=$(echo "$states" | grep -c '|COMPLETED|' || true)
if [ "$completed" -ne "$pages" ]; then
    echo "try-slurm: FAILED: $completed of $pages tasks COMPLETED; sacct says:" >&2
    echo "$states" | grep -v '|COMPLETED|' | head -20 >&2
    cat "$work"/logs/task-*.out 2>/dev/null | head -20 >&2
    exit 1
fi
echo "try-slurm: sacct: all $pages tasks COMPLETED in ${total} s (submit to last task)" >&2
sort -n "$work"/times/* | awk '{ printf "try-slurm:   task %3d  %6.2f s  exit %d\n", $1, $2, $3; sum += $2 }
    END { printf "try-slurm:   task times: sum %.2f s, mean %.2f s\n", sum, sum / NR }' >&2

(cd "$work/cluster" && "$masonry" index --from-plan s.mplan -q)
differing=0
for file in "$work"/reference/*; do
    name=$(basename "$file")
    cmp -s "$file" "$work/cluster/$name" || { echo "try-slurm: DIFFERS: $name" >&2; differing=$((differing + 1)); }
done
count=$(ls "$work/reference" | wc -l)
if [ "$differing" -ne 0 ] || [ "$(ls "$work/cluster" | grep -vc '^s\.mplan$')" -ne "$count" ]; then
    echo "try-slurm: FAILED: $differing of $count files differ from the one-machine run" >&2
    exit 1
fi
echo "try-slurm: byte-identical: $pages pages, s.json and s.html equal the one-machine run's ($count files)"
