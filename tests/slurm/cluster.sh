#!/usr/bin/env bash
# A one-node Slurm cluster on 127.0.0.1 for the tests (shared/SLURM.md's
# recipe): munged, slurmctld and slurmd as root, state under $OMCTI_SLURM_DIR
# (default $TMPDIR/omcti-slurm, or /tmp/omcti-slurm: one fixed name, so that
# `stop` and later runs find the daemons that `start` started; never
# followed when it is a link or not ours), configuration in
# $OMCTI_SLURM_DIR/slurm.conf
# (used through SLURM_CONF, so /etc/slurm is left alone).
#
# usage: tests/slurm/cluster.sh start|stop|status|env
#   start   idempotent: does nothing when our cluster already answers; uses a
#           cluster that already answers on this host without starting one
#   stop    stops only the daemons that `start` started, by their PIDs
#   env     prints the export line clients need (eval "$(cluster.sh env)")
# Exit 77 (the tests' "skip") when Slurm or munge is not installed, or when
# not run as root.
# Needs: apt-get install -y slurmctld slurmd slurm-client munge
set -euo pipefail
S=${OMCTI_SLURM_DIR:-${TMPDIR:-/tmp}/omcti-slurm}
CONF=$S/slurm.conf
export SLURM_CONF=$CONF

have_slurm() {
    [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] && command -v sbatch >/dev/null &&
        [ -x /usr/sbin/munged ]
}
answers() { timeout 5 sinfo -h -o %T 2>/dev/null | grep -q .; }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

start() {
    if ! have_slurm; then
        echo "cluster.sh: Slurm is not installed (apt-get install -y slurmctld slurmd slurm-client munge)" >&2
        exit 77
    fi
    if [ -f "$CONF" ] && answers; then
        echo "cluster.sh: running (SLURM_CONF=$CONF)"
        return 0
    fi
    if [ "$(id -u)" != 0 ]; then
        echo "cluster.sh: starting slurmd and munged needs root" >&2
        exit 77
    fi
    mkdir -p "$S"
    if [ -L "$S" ] || [ ! -O "$S" ]; then
        echo "cluster.sh: '$S' is a link or belongs to another user; set OMCTI_SLURM_DIR" >&2
        exit 1
    fi
    mkdir -p "$S/spool" "$S/state" "$S/log" "$S/pids"
    # munge: reuse a munged that works, else start ours.
    if ! (munge -n </dev/null | unmunge >/dev/null) 2>/dev/null; then
        [ -f /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
        chown munge:munge /etc/munge/munge.key
        chmod 400 /etc/munge/munge.key
        mkdir -p /run/munge /var/log/munge /var/lib/munge
        chown munge:munge /run/munge /var/log/munge /var/lib/munge
        runuser -u munge -- /usr/sbin/munged --force --pid-file=/run/munge/omcti-munged.pid
        for _ in $(seq 50); do [ -s /run/munge/omcti-munged.pid ] && break; sleep 0.1; done
        cp /run/munge/omcti-munged.pid "$S/pids/munged.pid"
    fi
    local cpus mem
    cpus=$(nproc)
    mem=$(( $(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo) - 2048 ))
    [ "$mem" -gt 256 ] || mem=256
    cat >"$CONF" <<CONF
ClusterName=omcti
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/pids/slurmctld.pid
SlurmdPidFile=$S/pids/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=100000
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    /usr/sbin/slurmctld -i -f "$CONF"
    /usr/sbin/slurmd -f "$CONF" -N localhost
    for _ in $(seq 300); do
        if timeout 5 sinfo -h -o %T 2>/dev/null | grep -q idle; then
            echo "cluster.sh: started (SLURM_CONF=$CONF; $cpus CPUs, ${mem} MiB)"
            return 0
        fi
        sleep 0.1
    done
    echo "cluster.sh: the node did not become idle in 30 s; see $S/log/" >&2
    exit 1
}

stop() {
    local f
    for f in slurmd slurmctld munged; do
        if alive "$S/pids/$f.pid"; then
            local pid
            pid=$(cat "$S/pids/$f.pid")
            kill "$pid"
            for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            echo "cluster.sh: stopped $f ($pid)"
        fi
        rm -f "$S/pids/$f.pid"
    done
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) if [ -f "$CONF" ] && answers; then sinfo; else echo "cluster.sh: not running"; exit 1; fi ;;
    env) echo "export SLURM_CONF=$CONF" ;;
    *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
