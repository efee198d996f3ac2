// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest's plain memcpy bandwidth, for scripts/perf-compare.
 *
 *	memcpy-bw SIZE [SECONDS]
 *
 * Copies SIZE bytes from one buffer to another, over and over, for about
 * SECONDS (default 1), and prints "SIZE MiB/s" on one line.  A loopback
 * RDMA transfer needs exactly one such copy, from the source MR to the
 * destination MR, so this is the figure the 64 KiB bandwidths can
 * approach: with SIZE 65536 both buffers stay in the cache, as a 64 KiB
 * message's pages would; with a large SIZE the copy runs from memory.
 *
 * Built on the host at run time (gcc -O2) and run in the guest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = 1.0, start, elapsed;
	unsigned long long copied = 0;
	size_t size, i;
	char *src, *dst;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s SIZE [SECONDS]\n", argv[0]);
		return 2;
	}
	size = strtoull(argv[1], NULL, 0);
	if (argc == 3)
		secs = strtod(argv[2], NULL);
	if (!size || secs <= 0) {
		fprintf(stderr, "%s: bad SIZE or SECONDS\n", argv[0]);
		return 2;
	}

	src = malloc(size);
	dst = malloc(size);
	if (!src || !dst) {
		perror("malloc");
		return 1;
	}
	/* Fault every page in before the clock starts. */
	memset(src, 0x5a, size);
	memset(dst, 0, size);

	start = now();
	do {
		/*
		 * Enough copies between two clock reads that the read costs
		 * nothing, few enough that the run ends near SECONDS.
		 */
		for (i = 0; i < (64 << 20) / size + 1; i++) {
			memcpy(dst, src, size);
			/* dst is never read: keep the compiler's hands off. */
			__asm__ __volatile__("" : : "r" (dst) : "memory");
			copied += size;
		}
		elapsed = now() - start;
	} while (elapsed < secs);

	printf("%zu %.1f\n", size, copied / elapsed / (1 << 20));
	free(src);
	free(dst);
	return 0;
}
