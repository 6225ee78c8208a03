# shellcheck shell=bash
# tests/integration/tools/pool-fix-lib.sh: the fix tests' helpers (fix-lib.sh) pointed at a pool
# of servers (tests/integration/pool.sh), and the checks only a pool has. Source it after
# lib.sh, pool.sh and fix-lib.sh, then call pf_init.
#
#	pf_init [N]		fx_init, then an N-server pool (default 3); layoutctl runs on node 1
#				in the pool's namespace ($PF_LAYOUTCTL), with the workers of the other
#				servers started through tools/local-rsh ($PF_RSH: the pool's, which
#				gives each its own node's glusterd directory); fx_fix, fx_checker_*, fx_scan_after_fix and
#				fx_bricks_check then work on the pool
#	pf_fix VOL ARGS...	fx_fix with the pool's remote shell and without the task check (the
#				gluster CLI in the namespace would ask the glusterd outside)
#	pf_movers_check VOL	every server's outcome log (STATE/server-HOST/outcomes.jsonl): each
#				file it migrated came from a subvolume with a brick on that server,
#				no file was migrated by two servers, and the logs hold every
#				migration the fix reported (the starting host's own lines in its
#				log: those without a server)
#	pf_worker_pids NODE	pids of the layoutctl workers started for node NODE

PF_RSH=

pf_init() {
	fx_init
	lctl_pool_start "${1:-3}"
	# layoutctl passes a remote shell none of its environment: the pool's remote shell has
	# each node's glusterd directory written in (lctl_pool_rsh_env)
	lctl_pool_rsh_env
	PF_RSH=$LCTL_POOL_RSH
	GFCHECK_SERVER=${LCTL_POOL_HOSTS[0]}
	export GFCHECK_SERVER
	PF_LAYOUTCTL=(lctl_pool_exec "$LAYOUTCTL" --server "${LCTL_POOL_HOSTS[0]}"
		--glusterd-dir "$LCTL_POOL_DIR/node1/wd")
	# read by fix-lib.sh
	# shellcheck disable=SC2034
	FX_LAYOUTCTL=("${PF_LAYOUTCTL[@]}")
	# shellcheck disable=SC2034
	FX_RUN=(lctl_pool_exec)
	# shellcheck disable=SC2034
	FX_SUBVOL_ARGS=pf_subvol_args
	# shellcheck disable=SC2034
	FX_VOL_HASH=pf_vol_hash
}

pf_fix() {
	local vol=$1
	shift
	fx_fix "$vol" --no-task-check --rsh "$PF_RSH" --remote-cmd "$LAYOUTCTL" "$@"
}

# NAME=BRICK[,BRICK...] per DHT child, from node 1's volfile and the pool's brick list.
pf_subvol_args() {
	local -a names bricks
	local n set i k line
	mapfile -t names < <(lctl_pool_gluster 1 system:: getspec "$1" 2>/dev/null | awk '
		$1 == "volume" { name = $2 }
		$1 == "type" && $2 == "cluster/distribute" { dht = 1 }
		dht && !done && $1 == "subvolumes" { for (i = 2; i <= NF; i++) print $i; done = 1 }')
	n=${#names[@]}
	((n > 0)) || fail "no DHT subvolumes in the volfile of $1"
	lctl_pool_vol_bricks "$1" bricks
	set=$((${#bricks[@]} / n))
	((set * n == ${#bricks[@]})) || fail "${#bricks[@]} bricks do not make $n subvolumes"
	for ((i = 0; i < n; i++)); do
		line=${names[i]}=
		for ((k = 0; k < set; k++)); do
			line+=${bricks[i * set + k]#*:}
			((k == set - 1)) || line+=,
		done
		printf '%s\n' "$line"
	done
}

pf_vol_hash() {
	local -a bricks
	lctl_pool_vol_bricks "$1" bricks
	getfattr --absolute-names --only-values -n trusted.glusterfs.dht.commithash -- \
		"${bricks[0]#*:}" 2>/dev/null | tr -d '\0'
}

pf_movers_check() {
	local vol=$1 log host n total=0 reported
	local -A where=()
	while IFS='=' read -r name list; do
		where[$name]=$list
	done < <(pf_subvol_args "$vol")
	: >"$FX/movers"
	for log in "$FX"/state/server-*/outcomes.jsonl; do
		[[ -f $log ]] || continue
		host=${log%/outcomes.jsonl}
		host=${host##*/server-}
		# the hosts of the source subvolume's bricks must include this server
		jq -r 'select(.outcome == "migrated") | [.from, .path] | @tsv' "$log" |
			while IFS=$'\t' read -r from path; do
				local ok=0 b
				for b in ${where[$from]//,/ }; do
					[[ $(lctl_pool_brick_node "$b") == "${host##*.}" ]] && ok=1
				done
				((ok)) || fail "server $host migrated $path from $from, whose bricks are not on it"
				printf '%s\n' "$path"
			done >>"$FX/movers" || exit 1
		n=$(jq -s 'map(select(.outcome == "migrated")) | length' "$log")
		printf 'server %s migrated %s files\n' "$host" "$n" >&2
		total=$((total + n))
	done
	# The starting host moves the special files (a symlink needs its directory dirty, which
	# it sees to), and nothing else: every path it migrated is a symlink in the manifest.
	# (Its log holds the workers' lines too, each marked with its server: not its own.)
	log=$FX/state/outcomes.jsonl
	if [[ -f $log ]]; then
		jq -r 'select(.outcome == "migrated" and .server == null) | .path | ltrimstr("/")' \
			"$log" >"$FX/host-moved"
		[[ ! -f $FX/before ]] || while IFS= read -r path; do
			awk -F'\t' -v p="$path" '$1 == p && $2 == "l" { f = 1 } END { exit !f }' \
				"$FX/before" || fail "the starting host migrated $path, not a symbolic link"
		done <"$FX/host-moved"
		sed 's|^|/|' "$FX/host-moved" >>"$FX/movers"
		n=$(wc -l <"$FX/host-moved")
		printf 'the starting host migrated %s special files\n' "$n" >&2
		total=$((total + n))
	fi
	[[ -z $(sort "$FX/movers" | uniq -d) ]] ||
		fail "files migrated by two servers: $(sort "$FX/movers" | uniq -d | head -3)"
	reported=$(awk '$1 == "migrated" { print $2; exit }' "$FX/fix.out")
	assert_eq "$reported" "$total" "files the fix reported migrated vs the outcome logs of the servers and the starting host"
}

pf_worker_pids() {
	pgrep -f -- "--node ${LCTL_POOL_HOSTS[$1 - 1]} worker" || true
}
