#!/bin/bash
# drain.sh on a 3 x 2 distributed-replicate volume: its second replica set drained (named as
# the DHT subvolume), with the same writer, checker and checks; one of its bricks alone is
# refused.
DRAIN_KIND=rep exec bash "$LCTL_SRCDIR/tests/integration/drain.sh"
