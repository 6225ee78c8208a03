/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the layout decoder, the anomaly check, search and the planners on
 * arbitrary on-disk bytes. Input: one byte N (subvolumes), then per subvolume one error byte
 * and up to 20 bytes of xattr (length byte + value), then a name to hash.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layoutctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int errs[] = { 0, ENOENT, ENODATA, ENOTCONN, EINVAL, EIO };
	struct lctl_layout_entry e[64];
	struct lctl_range planned[64], old[64];
	struct lctl_layout_report rep;
	const char *names[64];
	char namebuf[64][16];
	bool active[64];
	char name[256];
	size_t n, i, pos = 0, len;
	struct lctl_plan_in in;
	uint32_t c;

	if (size < 1)
		return 0;
	n = data[pos++] % 64 + 1;
	for (i = 0; i < n; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		e[i].subvol = (int)i;
		snprintf(namebuf[i], sizeof(namebuf[i]), "v-client-%zu", i);
		names[i] = namebuf[i];
		active[i] = true;
		if (pos + 2 > size)
			break;
		e[i].err = errs[data[pos++] % 6];
		len = data[pos++] % 21;
		if (pos + len > size)
			len = size - pos;
		if (!e[i].err && lctl_layout_decode(data + pos, len, &e[i].r))
			e[i].err = EINVAL;
		active[i] = len & 1;
		pos += len;
	}
	n = i < n ? i + 1 : n;
	len = size - pos < sizeof(name) - 1 ? size - pos : sizeof(name) - 1;
	memcpy(name, data + pos, len);
	name[len] = '\0';

	lctl_layout_check(e, n, len ? data[pos] : 0, &rep);
	lctl_layout_search(e, n, lctl_dm_hash(name, strlen(name)));
	lctl_layout_merged_commit(e, n);
	in = (struct lctl_plan_in){ n, names, NULL, active, 0 };
	for (i = 0; i < n; i++)
		old[i] = e[i].r;
	if (lctl_plan_gluster(&in, NULL, name[0] == '/' ? name : "/d", 7, planned, NULL) == 0)
		lctl_layout_moved_fraction(old, planned, n);
	lctl_plan_gluster_fix(&in, NULL, "/d", e, 7, planned, NULL);
	lctl_plan_minmove(&in, e, NULL, 7, planned, NULL, NULL);
	c = 0;
	lctl_commithash_decode(data, size < 16 ? size : 16, &c);
	return 0;
}
