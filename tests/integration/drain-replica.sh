#!/bin/bash
# drain.sh on a 3 x 2 distributed-replicate volume: its second replica set drained (named as
# the DHT subvolume), with the same writer, checker and checks; one of its bricks alone is
# refused.
# The drain chases the writer over replica sets, pass after pass: on a 2-CPU machine loaded by
# the other lanes (CI's builds) it took over 900 s, at 6cebc4d as now, when another ran beside it.
# lctl-test-timeout: 1800
DRAIN_KIND=rep exec bash "$LCTL_SRCDIR/tests/integration/drain.sh"
