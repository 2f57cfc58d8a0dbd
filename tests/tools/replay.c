// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay - replay a block trace in the .lis format of Megiddo & Modha's ARC
 * traces (../shared/traces/README.md) as reads of a block device.
 *
 *   replay [-b BLOCK_SIZE] DEVICE [TRACE]
 *
 * TRACE is a plain .lis file, a .gz file (read through "gzip -dc"), or
 * stdin when absent or "-".  Each line "start_page n_pages ignored req_no"
 * becomes ONE O_DIRECT pread of n_pages * BLOCK_SIZE bytes at offset
 * start_page * BLOCK_SIZE (page k is block k), in trace order, one at a
 * time.  The buffer is aligned (posix_memalign) and grows to the longest
 * line.  BLOCK_SIZE defaults to 4096 and must be a power of two >= 512.
 *
 * Prints, on success:
 *   lines <n> pages <n> bytes <n> seconds <s>
 * Exit status: 0 ok, 1 I/O or trace error, 64 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "replay";

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [-b BLOCK_SIZE] DEVICE [TRACE|-]\n"
		"  TRACE: .lis file, .gz file (via gzip -dc), or stdin\n",
		prog);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* has_suffix - whether @s ends with @suf */
static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/*
 * gzip_cmd - "exec gzip -dc -- '<path>'", the path quoted for the shell
 * (each ' as '\''); NULL when out of memory.
 */
static char *gzip_cmd(const char *path)
{
	char *cmd = malloc(strlen(path) * 4 + 32), *p = cmd;

	if (!cmd)
		return NULL;
	p += sprintf(p, "exec gzip -dc -- '");
	for (; *path; path++) {
		if (*path == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *path;
		}
	}
	strcpy(p, "'");
	return cmd;
}

/*
 * open_trace - the trace as a stream; *@piped is set when it is a pipe from
 * gzip (to be closed with pclose).
 */
static FILE *open_trace(const char *path, int *piped)
{
	char *cmd;
	FILE *f;

	*piped = 0;
	if (!path || !strcmp(path, "-"))
		return stdin;
	if (!has_suffix(path, ".gz"))
		return fopen(path, "r");
	if (access(path, R_OK))
		return NULL;
	cmd = gzip_cmd(path);
	if (!cmd)
		return NULL;
	f = popen(cmd, "r");
	free(cmd);
	if (f)
		*piped = 1;
	return f;
}

int main(int argc, char **argv)
{
	uint64_t lines = 0, pages = 0, bytes = 0, lineno = 0;
	unsigned long bs = 4096;
	size_t bufsz = 0;
	void *buf = NULL;
	const char *dev, *trace;
	char line[256];
	int fd, opt, piped, ret = 0;
	double t0, t1;
	FILE *in;

	if (argc > 0 && argv[0][0])
		prog = argv[0];
	while ((opt = getopt(argc, argv, "b:h")) != -1) {
		switch (opt) {
		case 'b': {
			char *end;

			errno = 0;
			bs = strtoul(optarg, &end, 0);
			if (errno || *end || bs < 512 || (bs & (bs - 1))) {
				fprintf(stderr, "%s: bad block size '%s'\n",
					prog, optarg);
				return 64;
			}
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 64;
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		usage(stderr);
		return 64;
	}
	dev = argv[optind];
	trace = argc - optind == 2 ? argv[optind + 1] : NULL;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, dev, strerror(errno));
		return 1;
	}
	in = open_trace(trace, &piped);
	if (!in) {
		fprintf(stderr, "%s: %s: %s\n", prog, trace, strerror(errno));
		close(fd);
		return 1;
	}

	t0 = now();
	while (fgets(line, sizeof(line), in)) {
		unsigned long long start, n;
		size_t len;
		ssize_t r;
		int k;

		lineno++;
		if (!strchr(line, '\n') && !feof(in)) {
			fprintf(stderr, "%s: trace line %" PRIu64 " too long\n",
				prog, lineno);
			ret = 1;
			break;
		}
		k = sscanf(line, "%llu %llu", &start, &n);
		if (k == EOF)
			continue;	/* blank line */
		if (k != 2 || n == 0 || n > SIZE_MAX / bs ||
		    start > (uint64_t)INT64_MAX / bs - n) {
			fprintf(stderr, "%s: bad trace line %" PRIu64 ": %s",
				prog, lineno, line);
			ret = 1;
			break;
		}
		len = n * bs;
		if (len > bufsz) {
			free(buf);
			buf = NULL;
			if (posix_memalign(&buf, bs < 4096 ? 4096 : bs, len)) {
				fprintf(stderr, "%s: out of memory (%zu bytes)\n",
					prog, len);
				ret = 1;
				break;
			}
			bufsz = len;
		}
		r = pread(fd, buf, len, (off_t)(start * bs));
		if (r != (ssize_t)len) {
			fprintf(stderr, "%s: line %" PRIu64
				": pread of %zu bytes at block %llu: %s\n",
				prog, lineno, len, start,
				r < 0 ? strerror(errno) : "short read");
			ret = 1;
			break;
		}
		lines++;
		pages += n;
		bytes += len;
	}
	t1 = now();
	if (!ret && ferror(in)) {
		fprintf(stderr, "%s: reading the trace failed\n", prog);
		ret = 1;
	}
	if (piped) {
		int st = pclose(in);

		/* On an early error gzip may die of SIGPIPE: ignore it then. */
		if (!ret && st) {
			fprintf(stderr, "%s: gzip -dc %s failed (status %d)\n",
				prog, trace, st);
			ret = 1;
		}
	} else if (in != stdin) {
		fclose(in);
	}
	close(fd);
	free(buf);
	if (ret)
		return ret;
	printf("lines %" PRIu64 " pages %" PRIu64 " bytes %" PRIu64
	       " seconds %.3f\n", lines, pages, bytes, t1 - t0);
	return 0;
}
