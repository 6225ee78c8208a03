#!/bin/bash
# tests/run-all.sh [CONFIGURE-ARGS...]: install what is missing (tests/install-deps.sh), start
# glusterd if it is not running and remove leftovers of earlier test runs, then build layoutctl
# in its source tree and run every test tier under ASan+UBSan:
#	autoreconf -fi && ./configure --enable-werror --with-sanitizers=address,undefined [ARGS]
#	make -j2 && make check (in lanes: see below)
# beside them a ThreadSanitizer build (from `make distdir`) and `make distcheck` (unit and cli
# tiers); then the TSan build's crawler unit tests and a parallel scan and fix on a real volume.
# Prints a summary per tier (unit, cli, integration: pass/fail/skip from the .trs files) and
# the cmocka per-case totals from the unit test logs, and fails on any failed test or on a
# sanitizer report in any test log. Works from any directory. Run it as root: the integration
# tests make real GlusterFS volumes (configure --disable-integration-tests leaves them out).
#
# Environment: LCTL_JOBS [2] for the build; LCTL_CHECK_FLAGS, extra `make check` arguments
# (e.g. "-j4" or "TESTS=tests/cli/usage.sh"); LCTL_SANITIZERS [address,undefined] ("no" for a
# plain build); LCTL_TSAN [1], LCTL_DISTCHECK [1] and LCTL_DEB [1] (0 skips that phase).
#
# LCTL_DEB: the side lane also builds the .deb (debian/) from a `make distdir` copy; at the end,
# as root, it is installed with apt-get, /usr/sbin/layoutctl --version and one integration test
# (LAYOUTCTL=/usr/sbin/layoutctl) run against it, and it is purged again. A layoutctl package
# that was installed before is left alone (that check is skipped, and says so).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

tests/install-deps.sh
if ((EUID == 0)); then
	# shellcheck source-path=SCRIPTDIR source=integration/harness.sh
	. tests/integration/harness.sh
	lctl_glusterd_ensure
	lctl_cleanup_stale lctltest_ lctldemo_
else
	echo "run-all.sh: not root: the integration tests will fail (or configure --disable-integration-tests)" >&2
fi

# Results of an earlier run must not count: drop the old .trs/.log files and per-test logs.
find tests -name '*.trs' -delete
find tests -name '*.log' -type f -delete
rm -rf test-logs test-suite.log tests/pool-lane.out tests/builds.out tests/builds.rc

autoreconf -fi
# Objects built with other flags (say, without --with-sanitizers) are not rebuilt by make when
# only the configure arguments changed: clean first in that case.
old_config=$(./config.status --config 2>/dev/null || true)
# The whole suite runs under AddressSanitizer and UndefinedBehaviorSanitizer unless
# LCTL_SANITIZERS is set to "no" (or to another list).
san=${LCTL_SANITIZERS:-address,undefined}
./configure --enable-werror --with-sanitizers="$san" "$@"
[[ -z $old_config || $old_config == "$(./config.status --config)" ]] || make clean
make -j"${LCTL_JOBS:-2}"
rc=0
# Lanes (Makefile.am: print-test-lanes). The side lane: the pool tests (tests/integration/
# pool-*.sh: glusterds of their own, in network namespaces of their own, so nothing they do
# reaches the default glusterd or its volumes, and nothing the others do, glusterd restarts
# included, reaches them), the unit tests, fuzzers and the CLI tests that never reach the
# default glusterd. Beside it, the rest, LCTL_REST_JOBS [2] at a time (volumes of their own
# each), the slowest first; once both are done, the tests that restart the default glusterd,
# alone. LCTL_CHECK_FLAGS (or LCTL_LANES=1) runs one `make check`.
# The side lane's own tests are done minutes before the rest: then it runs the ThreadSanitizer
# build and `make distcheck` (the tarball builds, installs and passes the unit tests and the
# cli tests that read its data files; the integration tests run here against the same
# sources), which fill the CPU time the rest's last tests leave idle (waiting for GlusterFS)
# where at the start they slowed every test beside them, and then a few of the rest's tests
# (its tail: Makefile.am's side_tail) to even the lanes out. builds_wait before the summary.
tsan=$(mktemp -d /tmp/lctl-tsan.XXXXXX)
# what the TSan phase runs, and the programs it needs (built in the side lane, nothing more)
tsan_progs=(tests/unit/test-crawl tests/unit/test-migrationlimit)
tsan_tests="${tsan_progs[*]} tests/integration/parallel.sh"
# the .deb: built in the side lane (deb_build), installed and tried at the end (deb_check)
debdir=$(mktemp -d /tmp/lctl-deb.XXXXXX)
deb_test=tests/integration/fix-spread.sh
# deb_build: dpkg-buildpackage in a copy made by `make distdir` (in this tree, `debian/rules
# clean` would distclean the configured build), without the package's own tests (the lanes
# run them) and without the debug symbols package
deb_build() {
	local v spec
	# the packages say the version configure.ac says (the .deb's: deb_check, from --version)
	v=$(sed -n 's/^PACKAGE_VERSION = //p' Makefile)
	spec=$(sed -n 's/^Version: *//p' contrib/rpm/layoutctl.spec)
	[[ $spec == "$v" ]] || {
		echo "contrib/rpm/layoutctl.spec: Version $spec, configure.ac: $v"
		return 1
	}
	make distdir distdir="$debdir/src" >/dev/null
	(
		cd "$debdir/src"
		DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=${LCTL_JOBS:-2}" DEB_BUILD_PROFILES=nocheck \
			dpkg-buildpackage -us -uc -b
	) >"$debdir/build.log" 2>&1 || {
		tail -30 "$debdir/build.log"
		echo ".deb build failed: $debdir/build.log"
		return 1
	}
	rm -rf "$debdir/src"
}
# deb_purge: remove the package deb_check installed, and what dpkg keeps of it
deb_purge() {
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=120 layoutctl \
		>>"$debdir/install.log" 2>&1
}
# deb_check: install the .deb as an administrator would, run the installed binary, purge it
deb_check() {
	local deb want old r=0
	deb=$(find "$debdir" -maxdepth 1 -name 'layoutctl_*.deb')
	[[ -n $deb && $deb != *$'\n'* ]] || {
		echo "deb: no single layoutctl_*.deb in $debdir"
		return 1
	}
	want=$(dpkg-deb -f "$deb" Version)
	want=${want#*:}  # the upstream version: --version knows no epoch
	want=${want%-*}  # nor Debian revision
	old=$(dpkg-query -W -f='${Status} ${Version}' layoutctl 2>/dev/null || true)
	if [[ $old == *' ok installed '* ]]; then
		echo "deb: SKIPPED: layoutctl ${old##* } is installed on this machine and stays (dpkg --purge layoutctl to run this check)"
		return 0
	fi
	# (waiting for the dpkg lock if another apt-get holds it)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=120 "$deb" >"$debdir/install.log" 2>&1 || {
		tail -20 "$debdir/install.log"
		echo "deb: apt-get install $deb failed"
		deb_purge || true
		return 1
	}
	trap 'deb_purge || true' EXIT
	if [[ $(/usr/sbin/layoutctl --version) != "layoutctl $want" ]]; then
		echo "deb: /usr/sbin/layoutctl --version: not 'layoutctl $want': $(/usr/sbin/layoutctl --version 2>&1)"
		r=1
	elif ! LAYOUTCTL=/usr/sbin/layoutctl LCTL_BUILDDIR=$debdir tests/run-test.sh "$deb_test" \
		>"$debdir/test.log" 2>&1; then
		tail -20 "$debdir/test.log"
		echo "deb: $deb_test failed against the installed package: $debdir/test.log"
		r=1
	fi
	deb_purge || {
		echo "deb: apt-get purge layoutctl failed: $debdir/install.log"
		r=1
	}
	trap - EXIT
	if dpkg-query -W layoutctl >/dev/null 2>&1 || [[ -e /usr/sbin/layoutctl ]]; then
		echo "deb: the purge left layoutctl behind"
		r=1
	fi
	return "$r"
}
builds_run() {
	local t0=$SECONDS
	if [[ ${LCTL_TSAN:-1} != 0 ]]; then
		make distdir distdir="$tsan/src" >/dev/null
		(
			cd "$tsan/src"
			./configure -q --enable-werror --with-sanitizers=thread
			make -j"${LCTL_JOBS:-2}" layoutctl "${tsan_progs[@]}" >/dev/null
		) || {
			echo "ThreadSanitizer build failed in $tsan/src"
			return 1
		}
		echo "ThreadSanitizer build: ok ($((SECONDS - t0)) s)"
	fi
	t0=$SECONDS
	if [[ ${LCTL_DISTCHECK:-1} != 0 ]]; then
		make -j"${LCTL_JOBS:-2}" distcheck TESTS="$(make -s print-dist-tests)" \
			DISTCHECK_CONFIGURE_FLAGS="--enable-werror --disable-integration-tests" \
			>distcheck.log 2>&1 || {
			tail -40 distcheck.log
			echo "make distcheck failed: $top/distcheck.log"
			return 1
		}
		echo "make distcheck: ok ($((SECONDS - t0)) s)"
	fi
	t0=$SECONDS
	if [[ ${LCTL_DEB:-1} != 0 ]]; then
		deb_build || return 1
		echo ".deb build: ok ($((SECONDS - t0)) s)"
	fi
}
# builds_lane: the builds in the side lane (their exit status into tests/builds.rc)
builds_lane() {
	local r=0
	builds_run >tests/builds.out 2>&1 || r=$?
	echo "$r" >tests/builds.rc
}
builds_rc=0
builds_wait() {
	[[ -f tests/builds.rc ]] || builds_lane
	builds_rc=$(<tests/builds.rc)
}

lanes=$(make -s print-test-lanes)
pool_tests=$(sed -n 's/^pool: *//p' <<<"$lanes")
solo_tests=$(sed -n 's/^solo: *//p' <<<"$lanes")
rest_tests=$(sed -n 's/^rest: *//p' <<<"$lanes")
tail_tests=$(sed -n 's/^tail: *//p' <<<"$lanes")
if [[ -n ${LCTL_CHECK_FLAGS:-} || ${LCTL_LANES:-2} == 1 || -z $pool_tests ]]; then
	# shellcheck disable=SC2086 # word splitting of the flags is wanted
	make check ${LCTL_CHECK_FLAGS:-} || rc=$?
else
	t0=$SECONDS
	make check TESTS= >/dev/null # builds the test programs, so the lanes build nothing
	{
		r=0
		make check TESTS="$pool_tests" TEST_SUITE_LOG=tests/pool-suite.log >tests/pool-lane.out 2>&1 || r=$?
		echo "--- the side lane: $((SECONDS - t0)) s" >>tests/pool-lane.out
		builds_lane
		echo "--- the side lane's builds: $((SECONDS - t0)) s" >>tests/pool-lane.out
		if [[ -n ${tail_tests// /} ]]; then
			make check TESTS="$tail_tests" TEST_SUITE_LOG=tests/tail-suite.log >>tests/pool-lane.out 2>&1 || r=$?
			echo "--- the side lane's tail: $((SECONDS - t0)) s" >>tests/pool-lane.out
		fi
		exit "$r"
	} &
	lane=$!
	make -j"${LCTL_REST_JOBS:-2}" check TESTS="$rest_tests" || rc=$?
	echo "--- the rest: $((SECONDS - t0)) s"
	# the side lane's tail uses the default glusterd, which the solo tests restart
	wait "$lane" || rc=$?
	grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):|^--- the side lane' tests/pool-lane.out ||
		cat tests/pool-lane.out
	if [[ -n ${solo_tests// /} ]]; then
		make check TESTS="$solo_tests" TEST_SUITE_LOG=tests/solo-suite.log || rc=$?
		echo "--- alone: $((SECONDS - t0)) s"
	fi
fi
builds_wait

# --- summary ------------------------------------------------------------------------------------
declare -A count=()
tiers=(unit cli integration)
while IFS= read -r trs; do
	tier=${trs#tests/}
	tier=${tier%%/*}
	[[ " ${tiers[*]} " == *" $tier "* ]] || tiers+=("$tier")
	while IFS= read -r res; do
		count[$tier.$res]=$((${count[$tier.$res]:-0} + 1))
	done < <(sed -n 's/^:test-result: *\([A-Z]*\).*/\1/p' "$trs")
done < <(find tests -name '*.trs' | sort)

failed=0
echo
echo "==================== layoutctl test summary ===================="
for tier in "${tiers[@]}"; do
	pass=${count[$tier.PASS]:-0} skip=${count[$tier.SKIP]:-0} xfail=${count[$tier.XFAIL]:-0}
	fail=$((${count[$tier.FAIL]:-0} + ${count[$tier.XPASS]:-0} + ${count[$tier.ERROR]:-0}))
	failed=$((failed + fail))
	printf '%-12s %3d tests: %3d pass, %3d fail, %3d skip' "$tier" \
		$((pass + skip + xfail + fail)) "$pass" "$fail" "$skip"
	((xfail == 0)) || printf ', %d xfail' "$xfail"
	((${count[$tier.ERROR]:-0} == 0)) || printf ' (%d hard errors)' "${count[$tier.ERROR]}"
	echo
done

# cmocka, per case: each group ends with "[==========] N test(s) run.", then "[  PASSED  ] N
# test(s)." and, if any, "[  SKIPPED ] N test(s), listed below:" / "[  FAILED  ] N test(s), ...".
cm_run=0 cm_pass=0 cm_fail=0 cm_skip=0
shopt -s nullglob
for log in tests/unit/*.log; do
	while IFS= read -r line; do
		n=${line//[!0-9]/}
		case $line in
		'[==========] '*' test(s) run.') cm_run=$((cm_run + n)) ;;
		'[  PASSED  ] '*' test(s).') cm_pass=$((cm_pass + n)) ;;
		'[  FAILED  ] '*' test(s), listed below:') cm_fail=$((cm_fail + n)) ;;
		'[  SKIPPED ] '*' test(s), listed below:') cm_skip=$((cm_skip + n)) ;;
		esac
	done <"$log"
done
printf '%-12s %3d cases: %3d pass, %3d fail, %3d skip\n' "cmocka" "$cm_run" "$cm_pass" "$cm_fail" "$cm_skip"

# Sanitizer reports anywhere in the test logs (tests/run-test.sh checks the shell tests one by
# one; this also covers the unit test binaries, which automake runs directly).
# Where the time went: the slowest shell tests (tests/run-test.sh's "== duration" lines).
echo "slowest tests (seconds):"
while IFS= read -r log; do
	d=$(sed -n 's/^== duration \([0-9]*\) s$/\1/p' "$log" | tail -1)
	[[ -z $d ]] || printf '%6d  %s\n' "$d" "${log%.log}"
done < <(find tests -name '*.log' -path 'tests/*/*') | sort -rn | head -12

pattern=$(tests/run-test.sh --sanitizer-pattern)
mapfile -t san < <(grep -rlIE "$pattern" --include='*.log' tests 2>/dev/null || true)
mapfile -t -O "${#san[@]}" san < <(grep -rlIE "$pattern" test-logs --exclude-dir=gluster 2>/dev/null || true)
if ((${#san[@]})); then
	printf 'sanitizer reports in: %s\n' "${san[*]}"
	failed=$((failed + 1))
fi
echo "================================================================"

if ((rc != 0 || failed != 0)); then
	# Why each failed test failed, in a few lines: CI shows only the end of this output.
	while IFS= read -r trs; do
		grep -qE '^:test-result: *(FAIL|XPASS|ERROR)' "$trs" || continue
		log=${trs%.trs}.log
		echo "--- ${log%.log}:"
		# (layoutctl's own error lines too: what a failed exit status meant)
		{ grep -aE '^(FAIL|ERROR|layoutctl: error:|[^ ]*: runtime error|==[0-9]+==ERROR)' "$log" |
			head -8; tail -n 3 "$log"; } |
			cut -c1-300 | awk '!seen[$0]++'
	done < <(find tests -name '*.trs' | sort)
	[[ ! -f test-suite.log ]] || echo "details: $top/test-suite.log, per-test logs: $top/test-logs/"
	exit 1
fi

# --- ThreadSanitizer over the crawler and a parallel scan and fix ---------------------------------
# Its build (above, at the end of the side lane) is in a copy made by `make distdir` (the source tree is
# configured in place, so no VPATH build), which also proves the distribution holds what a
# build needs; its tests run here, after the others (parallel.sh needs the default glusterd,
# which fault-glusterd.sh restarts).
if ((builds_rc != 0)); then
	tail -40 tests/builds.out >&2
	echo "the ThreadSanitizer build or make distcheck failed: $top/tests/builds.out, $top/distcheck.log" >&2
	exit 1
fi
if [[ ${LCTL_TSAN:-1} != 0 ]]; then
	t0=$SECONDS
	(
		cd "$tsan/src"
		make -j"${LCTL_JOBS:-2}" check TESTS="$tsan_tests" check_PROGRAMS="${tsan_progs[*]}"
	) || {
		echo "ThreadSanitizer phase failed; logs in $tsan/src/test-logs and $tsan/src/tests" >&2
		exit 1
	}
	rm -rf "$tsan"
	echo "ThreadSanitizer: crawler and migration-limit unit tests and parallel scan+fix clean ($((SECONDS - t0)) s)"
fi
grep -E '^(ThreadSanitizer build|make distcheck|\.deb build): ' tests/builds.out || true

# --- the .deb, installed --------------------------------------------------------------------------
# (built at the end of the side lane; here, alone, because it puts layoutctl in /usr/sbin)
if [[ ${LCTL_DEB:-1} != 0 ]]; then
	if ((EUID == 0)); then
		t0=$SECONDS
		deb_check || exit 1
		echo ".deb installed: --version and $deb_test against /usr/sbin/layoutctl ok, purged ($((SECONDS - t0)) s)"
	else
		echo ".deb installed: skipped (not root)"
	fi
fi
rm -rf "$debdir"
