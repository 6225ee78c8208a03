# shellcheck shell=bash
# tests/integration/harness.sh: throwaway GlusterFS volumes on this machine, for the integration
# tests (through tests/integration/lib.sh) and the README demo. A bash library: `source` it.
# It sets no shell options, works under `set -euo pipefail`, and only defines lctl_* / _lctl_*
# functions and LCTL_* / _LCTL_* variables.
#
# Needs root, GlusterFS (glusterd, gluster, mount.glusterfs), xmllint, getfattr/setfattr, flock.
#
# Public functions:
#	lctl_glusterd_ensure			start glusterd unless it answers; wait until it does
#	lctl_cleanup_stale [PREFIX...]		remove volumes, mounts, bricks and logs of dead owners
#	lctl_vol_create KIND N [NAMEVAR]	dist: N bricks; rep: N x 2; disp: N x (2+1). Started,
#						every brick online. Name -> $NAMEVAR (LCTL_VOL)
#	lctl_vol_bricks VOL ARRAYVAR		brick paths in volume order ("BrickN:" order)
#	lctl_vol_field VOL FIELD		one field of `volume info --xml` (typeStr, brickCount...)
#	lctl_subvol_count VOL			number of DHT subvolumes
#	lctl_subvol_name VOL I			DHT child I (0-based): VOL-client-I, -replicate-I, -disperse-I
#	lctl_subvol_bricks VOL I		brick paths of DHT child I, one a line
#	lctl_brick_of_subvol VOL I		the first brick path of DHT child I
#	lctl_wait_bricks_online VOL		wait until every brick process of VOL is online
#	lctl_vol_add_bricks VOL COUNT		add COUNT DHT subvolumes (COUNT x set size bricks)
#	lctl_vol_remove_start VOL BRICK...	remove-brick start (BRICK: path or host:path)
#	lctl_wait_remove_complete VOL BRICK...	wait until that remove-brick migration completed
#	lctl_vol_remove_commit VOL BRICK...	remove-brick commit
#	lctl_vol_remove_bricks VOL BRICK...	start + wait + commit
#	lctl_rebalance VOL [fix-layout|force]	start a rebalance and wait until it completed
#	lctl_mount VOL [VAR]			FUSE mount in a temp dir, once it reaches every brick online;
#						mount point -> $VAR or stdout
#	lctl_umount MOUNTPOINT			unmount and remove the mount point
#	lctl_vol_destroy VOL			tear one of this process's volumes down now
#	lctl_on_exit CMD...			run CMD at exit (before the volumes go), last added first
#	lctl_gluster ARGS...			gluster --mode=script, retried while glusterd is busy
# After lctl_vol_create, lctl_vol_add_bricks and the remove helpers, the array LCTL_BRICKS holds
# the brick paths of the volume just created or changed (volume order); LCTL_NEW_BRICKS holds
# the bricks lctl_vol_add_bricks added.
#
# Ownership: every volume gets a state file $LCTL_STATE_DIR/<volume> naming its owner (pid,
# process start time, boot id) and its temp folder. It is written before the volume exists, so
# a concurrent lctl_cleanup_stale never takes a volume that is being created. A volume of ours
# (name PREFIX<pid>_<n>) whose owner is no longer running, or that has no state file, is stale.
# The EXIT trap tears down exactly the volumes owned by this process (also the ones created in
# a $(...) subshell), after the lctl_on_exit commands; when the exit status is non-zero, the
# GlusterFS logs of those volumes are first copied to $LCTL_TEST_LOGDIR/gluster/. INT, TERM and
# HUP exit with 130, 143 and 129, which runs the same trap. Don't replace the EXIT trap: use
# lctl_on_exit (an EXIT trap set before sourcing is kept and run first).
#
# Settings (environment; defaults in brackets):
#	LCTL_PREFIX [lctltest_]		volume name prefix; the README demo uses lctldemo_
#	LCTL_STATE_DIR [/run/lctl-harness]
#	LCTL_BRICK_BASE [/var/tmp, else /tmp]	where the temp folders go (needs trusted.* xattrs)
#	LCTL_TIMEOUT [60]		seconds for glusterd, brick and busy-retry waits
#	LCTL_REBALANCE_TIMEOUT [180]	seconds for rebalance and remove-brick migration
#	LCTL_KEEP_VOLUMES		non-empty: leave the volumes at exit (the next run cleans them)
#	LCTL_TEST_LOGDIR		where logs are kept when the test fails

[[ -z ${_LCTL_HARNESS_LOADED:-} ]] || return 0
_LCTL_HARNESS_LOADED=1

: "${LCTL_PREFIX:=lctltest_}"
: "${LCTL_STATE_DIR:=/run/lctl-harness}"
: "${LCTL_BRICK_BASE:=}"
: "${LCTL_HOST:=${HOSTNAME:-$(hostname)}}"
: "${LCTL_TIMEOUT:=60}"
: "${LCTL_REBALANCE_TIMEOUT:=180}"
: "${LCTL_GLUSTERD_PIDFILE:=/run/glusterd.pid}"
: "${LCTL_GLUSTER_LOGDIR:=/var/log/glusterfs}"
: "${LCTL_GLUSTERD_LOG:=$LCTL_GLUSTER_LOGDIR/glusterd.log}"
LCTL_BRICKS=()
LCTL_NEW_BRICKS=()
_LCTL_SEQ=0
_LCTL_ON_EXIT=()
_LCTL_READY=
_LCTL_BASE=
_LCTL_TASK_LOG_OFFSET=0
_LCTL_TASK_FROM_LOG=

# --- messages, small utilities ------------------------------------------------------------------

_lctl_note() {
	printf 'harness: %s\n' "$*" >&2
}

# Setup failures are not test failures: exit 99, automake's "hard error".
_lctl_hard() {
	printf 'harness: error: %s\n' "$*" >&2
	exit 99
}

_lctl_check_prefix() {
	[[ $1 =~ ^[A-Za-z][A-Za-z0-9-]{2,}_$ ]] ||
		_lctl_hard "bad volume name prefix '$1' (letters, digits, '-', at least 3, then '_')"
}

# Milliseconds since the epoch, for deadlines.
_lctl_now_ms() {
	local t=${EPOCHREALTIME/,/.}
	printf '%s' "$((${t%.*} * 1000 + 10#${t#*.} / 1000))"
}

# _lctl_xpath XML EXPR: the string value of EXPR.
_lctl_xpath() {
	xmllint --xpath "string($2)" - <<<"$1" 2>/dev/null || true
}

# _lctl_xpath_list XML EXPR: the text nodes EXPR selects, one a line.
_lctl_xpath_list() {
	xmllint --xpath "$2" - <<<"$1" 2>/dev/null || true
}

# The owner identity of process PID: "<start time in clock ticks> <boot id>", or nothing.
_lctl_proc_identity() {
	local stat boot fields
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
	read -r boot </proc/sys/kernel/random/boot_id
	read -ra fields <<<"${stat##*) }"
	printf '%s %s' "${fields[19]}" "$boot"
}

_lctl_escape_path() {
	local p=${1#/}
	printf '%s' "${p//\//-}"
}

# --- gluster CLI --------------------------------------------------------------------------------

# lctl_gluster ARGS...: `gluster --mode=script ARGS`, output on stdout. glusterd serialises its
# transactions (and may be restarting), so "Another transaction is in progress", "Locking
# failed" and "Connection failed" are retried until LCTL_TIMEOUT. With --xml, the CLI exits 0
# even when the operation failed: opRet decides, and opErrstr goes to stderr.
lctl_gluster() {
	local out err rc errf deadline xml='' arg
	for arg; do [[ $arg != --xml ]] || xml=1; done
	errf=$(mktemp "${TMPDIR:-/tmp}/lctl-gluster.XXXXXX")
	deadline=$(($(_lctl_now_ms) + LCTL_TIMEOUT * 1000))
	while :; do
		rc=0
		out=$(gluster --mode=script "$@" 2>"$errf") || rc=$?
		err=$(<"$errf")
		if ((rc == 0)) && [[ -n $xml ]] && [[ $(_lctl_xpath "$out" /cliOutput/opRet) != 0 ]]; then
			rc=1
			err=$(_lctl_xpath "$out" /cliOutput/opErrstr)
			[[ -n $err ]] || err="gluster $* failed: $out"
		fi
		((rc != 0)) || break
		case $err$out in
		*"Another transaction is in progress"* | *"ocking failed"* | *"try again after some time"* | \
			*"Connection failed. Please check if gluster daemon is operational"*)
			(($(_lctl_now_ms) < deadline)) || break
			sleep "0.$((RANDOM % 3 + 2))"
			continue
			;;
		esac
		break
	done
	rm -f -- "$errf"
	[[ -z $out ]] || printf '%s\n' "$out"
	[[ -z $err ]] || printf '%s\n' "$err" >&2
	return "$rc"
}

# _lctl_vol_xml VOL: `volume info VOL --xml`, or fail when there is no such volume.
_lctl_vol_xml() {
	lctl_gluster volume info "$1" --xml 2>/dev/null
}

lctl_vol_field() {
	local xml
	xml=$(_lctl_vol_xml "$1") || return 1
	_lctl_xpath "$xml" "/cliOutput/volInfo/volumes/volume/$2"
}

lctl_vol_bricks() {
	local _lctl_xml _lctl_b
	_lctl_xml=$(_lctl_vol_xml "$1") || _lctl_hard "no volume '$1'"
	local -n _lctl_out=$2
	_lctl_out=()
	while IFS= read -r _lctl_b; do
		[[ -z $_lctl_b ]] || _lctl_out+=("${_lctl_b#*:}")
	done < <(_lctl_xpath_list "$_lctl_xml" '/cliOutput/volInfo/volumes/volume/bricks/brick/name/text()')
}

# Bricks per DHT subvolume: the replica or disperse count, 1 for plain distribute.
_lctl_set_size() {
	local xml rep disp
	xml=$(_lctl_vol_xml "$1") || _lctl_hard "no volume '$1'"
	rep=$(_lctl_xpath "$xml" //volume/replicaCount)
	disp=$(_lctl_xpath "$xml" //volume/disperseCount)
	if ((${disp:-0} > 0)); then echo "$disp"; else echo "${rep:-1}"; fi
}

lctl_subvol_count() {
	local bricks=()
	lctl_vol_bricks "$1" bricks
	echo $((${#bricks[@]} / $(_lctl_set_size "$1")))
}

lctl_subvol_name() {
	local xml rep disp
	xml=$(_lctl_vol_xml "$1") || _lctl_hard "no volume '$1'"
	rep=$(_lctl_xpath "$xml" //volume/replicaCount)
	disp=$(_lctl_xpath "$xml" //volume/disperseCount)
	if ((${disp:-0} > 0)); then
		echo "$1-disperse-$2"
	elif ((${rep:-1} > 1)); then
		echo "$1-replicate-$2"
	else
		echo "$1-client-$2"
	fi
}

lctl_subvol_bricks() {
	local bricks=() size
	lctl_vol_bricks "$1" bricks
	size=$(_lctl_set_size "$1")
	(($2 >= 0 && ($2 + 1) * size <= ${#bricks[@]})) || _lctl_hard "volume '$1' has no subvolume $2"
	printf '%s\n' "${bricks[@]:$(($2 * size)):size}"
}

lctl_brick_of_subvol() {
	local first
	first=$(lctl_subvol_bricks "$@") || return
	printf '%s\n' "${first%%$'\n'*}"
}

# --- glusterd -----------------------------------------------------------------------------------

_lctl_glusterd_answers() {
	timeout 20 gluster --mode=script volume list >/dev/null 2>&1
}

# _lctl_glusterd_start_wait: like lctl_glusterd_ensure, but returns 1 instead of exiting.
_lctl_glusterd_start_wait() {
	local pid='' deadline lockfd rc=0
	_lctl_glusterd_answers && return 0
	mkdir -p "$LCTL_STATE_DIR"
	# Parallel tests may all find glusterd down: one of them starts it, the others wait.
	exec {lockfd}>>"$LCTL_STATE_DIR/glusterd.lock"
	flock -w "$LCTL_TIMEOUT" "$lockfd" || true
	if ! _lctl_glusterd_answers; then
		[[ ! -r $LCTL_GLUSTERD_PIDFILE ]] || read -r pid <"$LCTL_GLUSTERD_PIDFILE" || true
		if [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == glusterd ]]; then
			_lctl_note "glusterd (pid $pid) is running but does not answer yet; waiting"
		else
			_lctl_note "starting glusterd (log $LCTL_GLUSTERD_LOG)"
			# A clean environment (no sanitizer or test variables reach the daemon and its
			# bricks), no inherited stdout (nobody must wait for a pipe the daemon keeps), and
			# not the lock (the daemon and its bricks would hold it for good).
			env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
				glusterd -p "$LCTL_GLUSTERD_PIDFILE" --log-file="$LCTL_GLUSTERD_LOG" \
				</dev/null >/dev/null 2>&1 {lockfd}>&- || rc=$?
		fi
		deadline=$(($(_lctl_now_ms) + 30000))
		until ((rc != 0)) || _lctl_glusterd_answers; do
			(($(_lctl_now_ms) < deadline)) || rc=1
			((rc != 0)) || sleep 0.2
		done
	fi
	exec {lockfd}>&-
	if ((rc != 0)); then
		_lctl_note "glusterd does not answer; last lines of $LCTL_GLUSTERD_LOG:"
		tail -n 20 "$LCTL_GLUSTERD_LOG" >&2 2>/dev/null || true
		return 1
	fi
}

# lctl_glusterd_restart: stop glusterd (SIGTERM, as `systemctl restart glusterd` does with its
# KillMode=process: the bricks keep running) and start it again; wait until it answers. Every
# test running meanwhile loses its management connection for a moment: the fault tests run
# this, one at a time.
lctl_glusterd_restart() {
	local pid='' i
	[[ ! -r $LCTL_GLUSTERD_PIDFILE ]] || read -r pid <"$LCTL_GLUSTERD_PIDFILE" || true
	[[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == glusterd ]] ||
		pid=$(pgrep -x --nslist net --ns $$ glusterd | head -n 1) # not a test pool's (pool.sh)
	[[ -n $pid ]] || _lctl_hard "no glusterd to restart"
	_lctl_note "restarting glusterd (pid $pid)"
	kill -TERM "$pid"
	for ((i = 0; i < 300; i++)); do
		[[ -e /proc/$pid ]] || break
		sleep 0.1
	done
	[[ ! -e /proc/$pid ]] || _lctl_hard "glusterd (pid $pid) did not stop in 30 s"
	_lctl_glusterd_start_wait || _lctl_hard "glusterd did not come back"
}

lctl_glusterd_ensure() {
	local tool
	for tool in gluster glusterd mount.glusterfs; do
		command -v "$tool" >/dev/null ||
			_lctl_hard "GlusterFS is not installed, no '$tool' (apt-get install glusterfs-server glusterfs-client)"
	done
	command -v xmllint >/dev/null || _lctl_hard "xmllint is not installed (apt-get install libxml2-utils)"
	command -v getfattr >/dev/null || _lctl_hard "getfattr is not installed (apt-get install attr)"
	((EUID == 0)) || _lctl_hard "GlusterFS test volumes need root (glusterd, trusted.* xattrs, FUSE)"
	_lctl_glusterd_start_wait || _lctl_hard "cannot start glusterd"
}

# --- state files --------------------------------------------------------------------------------

# _lctl_state_get VOL KEY: a value from the volume's state file.
_lctl_state_get() {
	local k v f=$LCTL_STATE_DIR/$1
	[[ -f $f ]] || return 1
	while IFS='=' read -r k v; do
		[[ $k != "$2" ]] || {
			printf '%s' "$v"
			return 0
		}
	done <"$f"
	return 1
}

# _lctl_state_write VOL ROOT: (re)write the state file atomically, owned by this process.
_lctl_state_write() {
	local f=$LCTL_STATE_DIR/$1
	printf 'owner_pid=%s\nowner_id=%s\nroot=%s\n' "$$" "$_LCTL_OWNER_ID" "$2" >"$f.tmp.$BASHPID"
	mv -f -- "$f.tmp.$BASHPID" "$f"
}

# _lctl_owner_alive VOL: does a live process own VOL?
_lctl_owner_alive() {
	local pid id
	pid=$(_lctl_state_get "$1" owner_pid) && id=$(_lctl_state_get "$1" owner_id) || return 1
	[[ $pid =~ ^[0-9]+$ && $(_lctl_proc_identity "$pid") == "$id" ]]
}

# _lctl_mine VOL: does this process own VOL?
_lctl_mine() {
	[[ $(_lctl_state_get "$1" owner_pid) == "$$" && $(_lctl_state_get "$1" owner_id) == "$_LCTL_OWNER_ID" ]]
}

_LCTL_OWNER_ID=$(_lctl_proc_identity $$)

# --- bricks folder ------------------------------------------------------------------------------

# _lctl_find_brick_base: set _LCTL_BASE to the first candidate folder whose filesystem takes
# trusted.* xattrs (GlusterFS keeps the gfid and the layouts there).
_lctl_find_brick_base() {
	local base probe ok=''
	[[ -z $_LCTL_BASE ]] || return 0
	for base in ${LCTL_BRICK_BASE:-/var/tmp /tmp}; do
		probe=$(mktemp -d "$base/lctl-xattr-probe.XXXXXX" 2>/dev/null) || continue
		setfattr -n trusted.lctl.probe -v 1 "$probe" 2>/dev/null &&
			[[ $(getfattr --absolute-names --only-values -n trusted.lctl.probe "$probe" 2>/dev/null) == 1 ]] &&
			ok=1
		rm -rf -- "$probe"
		if [[ -n $ok ]]; then
			_LCTL_BASE=$base
			return 0
		fi
		_lctl_note "$base does not support trusted.* xattrs, not using it for bricks"
	done
	_lctl_hard "no folder for bricks supports trusted.* xattrs" \
		"(tried ${LCTL_BRICK_BASE:-/var/tmp /tmp}; set LCTL_BRICK_BASE)"
}

# --- teardown -----------------------------------------------------------------------------------

# _lctl_vol_mounts VOL: the mount points of every FUSE mount of VOL, one a line.
_lctl_vol_mounts() {
	local src mp fstype rest
	while read -r src mp fstype rest; do
		[[ $fstype == fuse.glusterfs ]] || continue
		src=${src#*:}
		[[ ${src#/} == "$1" ]] || continue
		printf '%b\n' "$mp"
	done </proc/mounts
}

_lctl_umount() {
	umount -- "$1" 2>/dev/null || umount -l -- "$1" 2>/dev/null || {
		_lctl_note "cannot unmount $1"
		return 1
	}
}

# _lctl_stop_bricks VOL: end VOL's brick processes ourselves. `volume stop` spends about one
# second per brick; glusterd finds them already gone and returns at once. Only without brick
# multiplexing (each brick its own glusterfsd), and only pids whose command line names VOL.
_lctl_stop_bricks() {
	local xml pid pids=() mux deadline
	mux=$(lctl_gluster volume get all cluster.brick-multiplex 2>/dev/null) || return 0
	[[ $mux == *disable* ]] || return 0
	xml=$(lctl_gluster volume status "$1" --xml 2>/dev/null) || return 0
	for pid in $(_lctl_xpath_list "$xml" '//node[starts-with(path,"/")]/pid/text()'); do
		[[ $pid =~ ^[1-9][0-9]*$ ]] || continue
		[[ $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) == *" --volfile-id $1."* ]] || continue
		kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
	done
	deadline=$(($(_lctl_now_ms) + 5000))
	for pid in "${pids[@]}"; do
		while [[ -e /proc/$pid && $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]] &&
			(($(_lctl_now_ms) < deadline)); do
			sleep 0.05
		done
	done
}

# _lctl_vol_roots VOL: the temp folders of VOL (state file, or by name in the brick bases).
_lctl_vol_roots() {
	local root base d
	local -A seen=()
	if root=$(_lctl_state_get "$1" root) && [[ -n $root ]]; then
		seen[$root]=1
		printf '%s\n' "$root"
	fi
	for base in ${LCTL_BRICK_BASE:-} /var/tmp /tmp; do
		for d in "$base/$1".??????; do
			[[ -d $d && -z ${seen[$d]:-} ]] || continue
			seen[$d]=1
			printf '%s\n' "$d"
		done
	done
}

# _lctl_save_logs VOL DEST: copy what tells why a test failed: the volume's info and status,
# its brick, mount and rebalance logs, and the end of glusterd's log.
_lctl_save_logs() {
	local vol=$1 dest=$2/gluster/$1 root f
	mkdir -p -- "$dest" || return 0
	lctl_gluster volume info "$vol" >"$dest/volume-info.txt" 2>&1
	lctl_gluster volume status "$vol" detail >"$dest/volume-status.txt" 2>&1
	while IFS= read -r root; do
		root=$(_lctl_escape_path "$root")
		for f in "$LCTL_GLUSTER_LOGDIR/bricks/$root"-*.log "$LCTL_GLUSTER_LOGDIR/$root"-*.log; do
			[[ ! -f $f ]] || cp -p -- "$f" "$dest/"
		done
	done < <(_lctl_vol_roots "$vol")
	f=$LCTL_GLUSTER_LOGDIR/$vol-rebalance.log
	[[ ! -f $f ]] || cp -p -- "$f" "$dest/"
	tail -n 300 "$LCTL_GLUSTERD_LOG" >"$dest/glusterd.log.tail" 2>/dev/null
	_lctl_note "kept the GlusterFS logs of $vol in $dest"
}

# _lctl_destroy VOL: unmount, stop (force), delete, remove the temp folder, the logs and the state
# file. Tolerant: it also works for half-created volumes, volumes whose bricks are not running,
# and names of which only a folder or a mount is left. Returns 1 if something stayed.
_lctl_destroy() {
	local vol=$1 mp root ok=0 info status out
	while IFS= read -r mp; do
		[[ -z $mp ]] || _lctl_umount "$mp" || ok=1
	done < <(_lctl_vol_mounts "$vol")
	if info=$(_lctl_vol_xml "$vol"); then
		status=$(_lctl_xpath "$info" //volume/statusStr)
		if [[ $status != Created && $status != Stopped ]]; then
			_lctl_stop_bricks "$vol"
			if ! out=$(lctl_gluster volume stop "$vol" force 2>&1) && [[ $out != *"not in the started state"* ]]; then
				_lctl_note "cannot stop $vol: $out"
			fi
		fi
		if ! out=$(lctl_gluster volume delete "$vol" 2>&1) && [[ $out != *"does not exist"* ]]; then
			_lctl_note "cannot delete $vol: $out"
			ok=1
		fi
	fi
	while IFS= read -r root; do
		[[ -n $root ]] || continue
		# A mount point inside the folder must not be walked by rm: unmount what is left.
		while read -r _ mp _; do
			mp=$(printf '%b' "$mp")
			[[ $mp != "$root"/* ]] || _lctl_umount "$mp" || ok=1
		done </proc/mounts
		rm -rf --one-file-system -- "$root" || ok=1
		rm -f -- "$LCTL_GLUSTER_LOGDIR/bricks/$(_lctl_escape_path "$root")"-*.log \
			"$LCTL_GLUSTER_LOGDIR/$(_lctl_escape_path "$root")"-*.log
	done < <(_lctl_vol_roots "$vol")
	rm -f -- "$LCTL_GLUSTER_LOGDIR/$vol-rebalance.log" "$LCTL_STATE_DIR/$vol".tmp.*
	((ok != 0)) || rm -f -- "$LCTL_STATE_DIR/$vol"
	return "$ok"
}

# lctl_vol_destroy VOL: tear down one of this process's volumes before exit.
lctl_vol_destroy() {
	_lctl_mine "$1" || _lctl_hard "volume '$1' does not belong to this process"
	_lctl_destroy "$1" || _lctl_hard "could not remove volume '$1' completely"
}

# lctl_cleanup_stale [PREFIX...]: remove every volume named PREFIX<pid>_<n> (default prefix
# $LCTL_PREFIX) whose owner is not running, with its mounts, temp folder, logs and state file.
lctl_cleanup_stale() {
	local prefixes=("$@") p re names=() name src mp fstype base d lockfd
	local -A seen=()
	((${#prefixes[@]})) || prefixes=("$LCTL_PREFIX")
	for p in "${prefixes[@]}"; do _lctl_check_prefix "$p"; done
	lctl_glusterd_ensure
	mkdir -p "$LCTL_STATE_DIR"
	exec {lockfd}>>"$LCTL_STATE_DIR/cleanup.lock"
	flock -w "$LCTL_TIMEOUT" "$lockfd" || true

	# Every place a leftover can be: glusterd's volumes, state files, mounts, temp folders.
	mapfile -t names < <(lctl_gluster volume list 2>/dev/null || true)
	for d in "$LCTL_STATE_DIR"/*; do names+=("${d##*/}"); done
	while read -r src mp fstype _; do
		[[ $fstype == fuse.glusterfs ]] || continue
		src=${src#*:}
		names+=("${src#/}")
	done </proc/mounts
	for base in ${LCTL_BRICK_BASE:-} /var/tmp /tmp; do
		for d in "$base"/*.??????; do
			d=${d##*/}
			names+=("${d%.??????}")
		done
	done

	for name in "${names[@]}"; do
		[[ -z ${seen[$name]:-} ]] || continue
		seen[$name]=1
		for p in "${prefixes[@]}"; do
			re="^${p}[0-9]+_[0-9]+$"
			[[ $name =~ $re ]] || continue
			_lctl_owner_alive "$name" && continue
			_lctl_note "removing stale volume $name"
			_lctl_destroy "$name" || _lctl_note "could not remove everything of stale volume $name"
		done
	done
	exec {lockfd}>&-
}

_lctl_exit_handler() {
	local rc=$? cmd vol f i logdir glusterd_ok=''
	# Only the process that sourced the harness tears down: not a subshell that inherited this.
	[[ $BASHPID == "$$" ]] || return "$rc"
	set +e
	trap - EXIT
	for ((i = ${#_LCTL_ON_EXIT[@]} - 1; i >= 0; i--)); do
		cmd=${_LCTL_ON_EXIT[i]}
		eval "$cmd" || _lctl_note "exit command failed: $cmd"
	done
	logdir=${LCTL_TEST_LOGDIR:-${TMPDIR:-/tmp}/lctl-logs.$$}
	for f in "$LCTL_STATE_DIR"/*; do
		vol=${f##*/}
		[[ -f $f && $vol != *.* ]] && _lctl_mine "$vol" || continue
		if [[ -n ${LCTL_KEEP_VOLUMES:-} ]]; then
			_lctl_note "keeping volume $vol (LCTL_KEEP_VOLUMES)"
			continue
		fi
		# The test may have stopped glusterd: without it nothing can be removed (and every
		# gluster call would wait for it), so leave the volumes to lctl_cleanup_stale.
		if [[ -z ${glusterd_ok:-} ]]; then
			_lctl_glusterd_start_wait || {
				_lctl_note "glusterd does not answer: the next lctl_cleanup_stale removes the volumes"
				break
			}
			glusterd_ok=1
		fi
		((rc == 0)) || _lctl_save_logs "$vol" "$logdir"
		_lctl_destroy "$vol" || _lctl_note "could not remove everything of volume $vol"
	done
	exit "$rc"
}

lctl_on_exit() {
	(($#)) || return 0
	if (($# == 1)); then
		_LCTL_ON_EXIT+=("$1")
	else
		_LCTL_ON_EXIT+=("${*@Q}")
	fi
}

# Keep an EXIT trap the sourcing script already had.
_lctl_prev_trap=$(trap -p EXIT)
if [[ -n $_lctl_prev_trap ]]; then
	eval "_lctl_prev_trap=(${_lctl_prev_trap})"
	lctl_on_exit "${_lctl_prev_trap[2]}"
fi
unset _lctl_prev_trap
trap _lctl_exit_handler EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# --- volumes ------------------------------------------------------------------------------------

# Once per process: glusterd up, leftovers of earlier runs gone.
_lctl_prepare() {
	[[ -z $_LCTL_READY ]] || return 0
	_lctl_check_prefix "$LCTL_PREFIX"
	lctl_glusterd_ensure
	lctl_cleanup_stale "$LCTL_PREFIX"
	_lctl_find_brick_base
	_LCTL_READY=1
}

lctl_wait_bricks_online() {
	local vol=$1 timeout=${2:-$LCTL_TIMEOUT} bricks=() xml online=0 deadline
	lctl_vol_bricks "$vol" bricks
	deadline=$(($(_lctl_now_ms) + timeout * 1000))
	while :; do
		if xml=$(lctl_gluster volume status "$vol" --xml 2>/dev/null); then
			online=$(_lctl_xpath "$xml" 'count(//node[starts-with(path,"/")][status="1"])')
			((online != ${#bricks[@]})) || return 0
		fi
		(($(_lctl_now_ms) < deadline)) || break
		sleep 0.2
	done
	lctl_gluster volume status "$vol" >&2
	_lctl_hard "volume $vol: only $online of ${#bricks[@]} bricks online after ${timeout}s"
}

# _lctl_vol_root VOL: the temp folder of one of our volumes.
_lctl_vol_root() {
	local root
	root=$(_lctl_state_get "$1" root) && [[ -d $root ]] ||
		_lctl_hard "volume '$1' was not created by this harness"
	printf '%s' "$root"
}

# _lctl_new_brick_paths ROOT COUNT: COUNT unused brick folder names b<i> under ROOT.
_lctl_new_brick_paths() {
	local d max=0 i
	for d in "$1"/b*; do
		i=${d##*/b}
		[[ ! $i =~ ^[0-9]+$ ]] || ((i <= max)) || max=$i
	done
	for ((i = max + 1; i <= max + $2; i++)); do
		printf '%s\n' "$1/b$i"
	done
}

lctl_vol_create() {
	# Locals are _lctl_-prefixed: NAMEVAR is assigned with printf -v and must not hit one.
	local _lctl_kind=${1:-} _lctl_n=${2:-} _lctl_name _lctl_root _lctl_size _lctl_i _lctl_t0
	local _lctl_bricks=() _lctl_opts=()
	case $_lctl_kind in
	dist) _lctl_size=1 ;;
	rep) _lctl_size=2 _lctl_opts=(replica 2) ;;
	disp) _lctl_size=3 _lctl_opts=(disperse 3 redundancy 1) ;;
	*) _lctl_hard "lctl_vol_create: KIND must be dist, rep or disp, not '$_lctl_kind'" ;;
	esac
	[[ $_lctl_n =~ ^[1-9][0-9]*$ ]] || _lctl_hard "lctl_vol_create: N must be a positive number, not '$_lctl_n'"
	_lctl_prepare
	_lctl_t0=$(_lctl_now_ms)
	# Claim a name: the state file is created exclusively, before the volume or its folder.
	while :; do
		_LCTL_SEQ=$((_LCTL_SEQ + 1))
		_lctl_name=$LCTL_PREFIX$$_$_LCTL_SEQ
		(set -C && : >"$LCTL_STATE_DIR/$_lctl_name") 2>/dev/null && break
	done
	_lctl_state_write "$_lctl_name" ""
	_lctl_root=$(mktemp -d "$_LCTL_BASE/$_lctl_name.XXXXXX") || _lctl_hard "cannot create a temp folder"
	_lctl_state_write "$_lctl_name" "$_lctl_root"
	for ((_lctl_i = 1; _lctl_i <= _lctl_n * _lctl_size; _lctl_i++)); do
		_lctl_bricks+=("$LCTL_HOST:$_lctl_root/b$_lctl_i")
	done
	lctl_gluster volume create "$_lctl_name" "${_lctl_opts[@]}" "${_lctl_bricks[@]}" force >/dev/null ||
		_lctl_hard "cannot create volume $_lctl_name"
	lctl_gluster volume start "$_lctl_name" >/dev/null || _lctl_hard "cannot start volume $_lctl_name"
	lctl_wait_bricks_online "$_lctl_name"
	printf -v "${3:-LCTL_VOL}" '%s' "$_lctl_name"
	lctl_vol_bricks "$_lctl_name" LCTL_BRICKS
	_lctl_note "created $_lctl_kind volume $_lctl_name: ${#LCTL_BRICKS[@]} bricks in $_lctl_root" \
		"($(($(_lctl_now_ms) - _lctl_t0)) ms)"
}

lctl_vol_add_bricks() {
	local vol=$1 count=${2:-} root size bricks=() b
	[[ $count =~ ^[1-9][0-9]*$ ]] || _lctl_hard "lctl_vol_add_bricks: COUNT must be a positive number"
	root=$(_lctl_vol_root "$vol")
	size=$(_lctl_set_size "$vol")
	LCTL_NEW_BRICKS=()
	while IFS= read -r b; do
		LCTL_NEW_BRICKS+=("$b")
		bricks+=("$LCTL_HOST:$b")
	done < <(_lctl_new_brick_paths "$root" $((count * size)))
	lctl_gluster volume add-brick "$vol" "${bricks[@]}" force >/dev/null ||
		_lctl_hard "cannot add bricks to $vol"
	lctl_wait_bricks_online "$vol"
	lctl_vol_bricks "$vol" LCTL_BRICKS
	_lctl_note "added to $vol: ${LCTL_NEW_BRICKS[*]}"
}

# _lctl_brick_args BRICK...: host:path names for gluster (a bare path gets this host).
_lctl_brick_args() {
	local b
	for b; do
		[[ $b == *:* ]] || b=$LCTL_HOST:$b
		printf '%s\n' "$b"
	done
}

lctl_vol_remove_start() {
	local vol=$1 bricks
	shift
	mapfile -t bricks < <(_lctl_brick_args "$@")
	_lctl_task_log_mark "$vol"
	lctl_gluster volume remove-brick "$vol" "${bricks[@]}" start >/dev/null ||
		_lctl_hard "cannot start removing ${bricks[*]} from $vol"
}

# _lctl_wait_task WHAT XMLROOT TIMEOUT volume {rebalance|remove-brick} VOL ... status --xml:
# poll that rebalance-like status until it reports completed. Status codes (gf_defrag_status_t):
# 0 not started, 1 in progress, 2 stopped, 3 completed, 4 failed, 5 fix-layout in progress,
# 6 fix-layout stopped, 7 fix-layout completed, 8 fix-layout failed.
#
# glusterd can lose the end of a run: its rpc to the rebalance process connects only after a
# fixed 5 s sleep, and a process that is done by then (a small volume, a loaded machine) may
# leave the status "in progress" for good. So when the process has been gone for 10 s and
# the status is still not final, the run's own log (from _LCTL_TASK_LOG_OFFSET, set when the
# harness started the task) decides; _LCTL_TASK_FROM_LOG is then set.
_lctl_wait_task() {
	local what=$1 root=$2 timeout=$3 vol=$6 xml st deadline failures gone=0 line
	shift 3
	_LCTL_TASK_FROM_LOG=
	deadline=$(($(_lctl_now_ms) + timeout * 1000))
	while :; do
		xml=$(lctl_gluster "$@" 2>/dev/null) || xml=
		st=$(_lctl_xpath "$xml" "/cliOutput/$root/aggregate/status")
		case $st in
		3 | 7)
			failures=$(_lctl_xpath "$xml" "/cliOutput/$root/aggregate/failures")
			((${failures:-0} == 0)) || _lctl_hard "$what completed with $failures failures"
			return 0
			;;
		2 | 4 | 6 | 8)
			_lctl_hard "$what: $(_lctl_xpath "$xml" "/cliOutput/$root/aggregate/statusStr")"
			;;
		esac
		if _lctl_rebalance_pids "$vol" >/dev/null; then
			gone=0
		elif ((gone == 0)); then
			gone=$(_lctl_now_ms)
		elif (($(_lctl_now_ms) - gone > 10000)); then
			line=$(tail -c +$((_LCTL_TASK_LOG_OFFSET + 1)) "$LCTL_GLUSTER_LOGDIR/$vol-rebalance.log" 2>/dev/null |
				grep 'Rebalance is completed' | tail -n 1)
			[[ -n $line ]] || _lctl_hard "$what: the rebalance process ended, but glusterd says status '$st'"
			failures=$(sed -n 's/.*failures: \([0-9]*\).*/\1/p' <<<"$line")
			((${failures:-1} == 0)) || _lctl_hard "$what: the rebalance log says: ${line#*] }"
			_lctl_note "$what: glusterd still says status '$st', but its process logged: ${line#*] }"
			_LCTL_TASK_FROM_LOG=1
			return 0
		fi
		(($(_lctl_now_ms) < deadline)) || break
		sleep 0.2
	done
	_lctl_note "$what: status '$st' after ${timeout}s; rebalance process: $(_lctl_rebalance_pids "$vol")"
	tail -n 5 "$LCTL_GLUSTER_LOGDIR/$vol-rebalance.log" >&2 2>/dev/null
	_lctl_hard "$what did not complete in ${timeout}s"
}

# _lctl_task_log_mark VOL: remember where the rebalance log of VOL ends before a task starts.
_lctl_task_log_mark() {
	_LCTL_TASK_LOG_OFFSET=$(stat -c %s "$LCTL_GLUSTER_LOGDIR/$1-rebalance.log" 2>/dev/null || echo 0)
}

# _lctl_rebalance_pids VOL: the pids of VOL's rebalance (or remove-brick migration) process;
# fails (printing "none") when there is none.
_lctl_rebalance_pids() {
	local pid found=1
	for pid in $(pgrep -x glusterfs); do
		[[ $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) == *" --volfile-id rebalance/$1 "* ]] || continue
		printf '%s ' "$pid"
		found=0
	done
	((found == 0)) || printf 'none'
	return "$found"
}

lctl_wait_remove_complete() {
	local vol=$1 bricks
	shift
	mapfile -t bricks < <(_lctl_brick_args "$@")
	_lctl_wait_task "remove-brick of ${bricks[*]} from $vol" volRemoveBrick "$LCTL_REBALANCE_TIMEOUT" \
		volume remove-brick "$vol" "${bricks[@]}" status --xml
}

lctl_vol_remove_commit() {
	local vol=$1 bricks
	shift
	mapfile -t bricks < <(_lctl_brick_args "$@")
	# When glusterd lost the end of the migration (see _lctl_wait_task), it refuses a plain
	# commit; the migration's own log said it completed without failures, so force is safe.
	lctl_gluster volume remove-brick "$vol" "${bricks[@]}" commit >/dev/null ||
		{ [[ -n $_LCTL_TASK_FROM_LOG ]] &&
			lctl_gluster volume remove-brick "$vol" "${bricks[@]}" commit force >/dev/null; } ||
		_lctl_hard "cannot commit removing ${bricks[*]} from $vol"
	lctl_vol_bricks "$vol" LCTL_BRICKS
}

lctl_vol_remove_bricks() {
	lctl_vol_remove_start "$@"
	lctl_wait_remove_complete "$@"
	lctl_vol_remove_commit "$@"
	_lctl_note "removed ${*:2} from $1"
}

lctl_rebalance() {
	local vol=$1 mode=${2:-} args=() out id xml t0
	case $mode in
	'') args=(start) ;;
	fix-layout) args=(fix-layout start) ;;
	force) args=(start force) ;;
	*) _lctl_hard "lctl_rebalance: mode must be fix-layout or force, not '$mode'" ;;
	esac
	t0=$(_lctl_now_ms)
	_lctl_task_log_mark "$vol"
	out=$(lctl_gluster volume rebalance "$vol" "${args[@]}") || _lctl_hard "cannot start rebalance of $vol"
	# Wait for this run's task id, not the completed status of an earlier rebalance.
	id=$(sed -n 's/^ID: *//p' <<<"$out")
	if [[ -n $id ]]; then
		local deadline=$(($(_lctl_now_ms) + LCTL_TIMEOUT * 1000))
		until xml=$(lctl_gluster volume rebalance "$vol" status --xml 2>/dev/null) &&
			[[ $(_lctl_xpath "$xml" /cliOutput/volRebalance/task-id) == "$id" ]]; do
			(($(_lctl_now_ms) < deadline)) || _lctl_hard "rebalance $id of $vol does not show up"
			sleep 0.2
		done
	fi
	_lctl_wait_task "rebalance${mode:+ ($mode)} of $vol" volRebalance "$LCTL_REBALANCE_TIMEOUT" \
		volume rebalance "$vol" status --xml
	_lctl_note "rebalance${mode:+ ($mode)} of $vol completed ($(($(_lctl_now_ms) - t0)) ms)"
}

# _lctl_mount_wait_bricks MP VOL: wait (at most 20 s) until the mount on MP reaches every brick
# glusterd lists online. A new client whose connection to a brick failed at its start (seen:
# glusterd's port map of a brick just restarted with `volume start force`) tries again 3 s
# later, and meanwhile that brick's files are missing from the mount: fault-brick-kill.sh once
# found 70 files "gone" that way. The root's trusted.glusterfs.pathinfo names each brick the
# client reached (POSIX(...)); where it cannot be read (a disperse volume answers ENOMEM), or
# glusterd cannot say, there is nothing to wait for.
_lctl_mount_wait_bricks() {
	local xml online reached=0 pi i
	xml=$(lctl_gluster volume status "$2" --xml 2>/dev/null) || return 0
	online=$(_lctl_xpath "$xml" 'count(//node[starts-with(path,"/")][status="1"])')
	[[ $online =~ ^[1-9][0-9]*$ ]] || return 0
	for ((i = 0; i < 200; i++)); do
		pi=$(getfattr --absolute-names -n trusted.glusterfs.pathinfo --only-values -- "$1" 2>/dev/null) ||
			return 0
		reached=$(grep -o '<POSIX(' <<<"$pi" | wc -l)
		((reached < online)) || return 0
		sleep 0.1
	done
	_lctl_note "the mount of $2 on $1 reaches $reached of the $online bricks online after 20 s"
}

lctl_mount() {
	local _lctl_root _lctl_mp _lctl_out
	_lctl_root=$(_lctl_vol_root "$1")
	_lctl_mp=$(mktemp -d "$_lctl_root/mnt.XXXXXX")
	# The client daemon keeps the mount helper's stdout and stderr: give it a file, not the
	# pipe of a $(...) around lctl_mount, which would then wait until the unmount.
	_lctl_out=$(mktemp "${TMPDIR:-/tmp}/lctl-mount.XXXXXX")
	if ! mount -t glusterfs "localhost:/$1" "$_lctl_mp" </dev/null >"$_lctl_out" 2>&1; then
		_lctl_note "mount: $(<"$_lctl_out")"
		rm -f -- "$_lctl_out"
		_lctl_hard "cannot mount $1 on $_lctl_mp"
	fi
	rm -f -- "$_lctl_out"
	mountpoint -q -- "$_lctl_mp" && stat -- "$_lctl_mp" >/dev/null ||
		_lctl_hard "the mount of $1 on $_lctl_mp does not answer"
	_lctl_mount_wait_bricks "$_lctl_mp" "$1"
	if [[ -n ${2:-} ]]; then
		printf -v "$2" '%s' "$_lctl_mp"
	else
		printf '%s\n' "$_lctl_mp"
	fi
}

lctl_umount() {
	_lctl_umount "$1" || _lctl_hard "cannot unmount $1"
	rmdir -- "$1" 2>/dev/null || true
}
