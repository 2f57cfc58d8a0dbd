// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the table parser (table.c): every malformed line gets
 * its own message, and a good line parses to the exact values.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "dm-l2arc.h"

#define MAX_WORDS 16
#define NOT_ENOUGH "Not enough arguments: need <origin> <cache|-> <block_size>"

struct table_case {
	const char *line;	/* words after "l2arc" */
	const char *error;	/* expected ti->error */
};

static const struct table_case bad_lines[] = {
	{ "", NOT_ENOUGH },
	{ "/dev/a /dev/b", NOT_ENOUGH },
	{ "/dev/a /dev/a 8", "Origin and cache device are the same" },
	{ "/dev/a /dev/b x8", "Block size is not a number" },
	{ "/dev/a /dev/b 8k", "Block size is not a number" },
	{ "/dev/a /dev/b -8", "Block size is not a number" },
	{ "/dev/a /dev/b 99999999999999999999", "Block size overflows" },
	{ "/dev/a /dev/b 12", "Block size is not a power of two" },
	{ "/dev/a /dev/b 0", "Block size is not a power of two" },
	{ "/dev/a /dev/b 4", "Block size out of range (8 to 2048 sectors)" },
	{ "/dev/a /dev/b 4096", "Block size out of range (8 to 2048 sectors)" },
	{ "/dev/a /dev/b 8 x", "Feature count is not a number" },
	{ "/dev/a /dev/b 8 2x arc_max 65536", "Feature count is not a number" },
	{ "/dev/a /dev/b 8 4294967298 arc_max 65536", "Feature count overflows" },
	{ "/dev/a /dev/b 8 99999999999999999999999 a b", "Feature count overflows" },
	{ "/dev/a /dev/b 8 4 arc_max 65536", "Not enough feature arguments" },
	{ "/dev/a /dev/b 8 2 arc_max 65536 extra", "Too many arguments" },
	{ "/dev/a /dev/b 8 0 extra", "Too many arguments" },
	{ "/dev/a /dev/b 8 1 arc_max", "Features must be key/value pairs" },
	{ "/dev/a /dev/b 8 2 colour blue", "Unknown feature" },
	{ "/dev/a /dev/b 8 2 arc_max 64k", "arc_max is not a number" },
	{ "/dev/a /dev/b 8 2 arc_max 18446744073709551616", "arc_max overflows" },
	{ "/dev/a /dev/b 8 2 arc_max 65535", "arc_max is below 16 blocks" },
	{ "/dev/a /dev/b 2048 2 arc_max 8388608", "arc_max is below 16 blocks" },
	{ "/dev/a /dev/b 8 2 arc_max 18446744073709551615",
	  "arc_max exceeds the machine's memory" },
	{ "/dev/a /dev/b 8 2 prefetch_disable 2", "prefetch_disable must be 0 or 1" },
	{ "/dev/a /dev/b 8 2 prefetch_disable yes", "prefetch_disable must be 0 or 1" },
	{ "/dev/a /dev/b 8 4 arc_max 65536 arc_max 65536", "Duplicate feature arc_max" },
	{ "/dev/a - 8 4 prefetch_disable 1 prefetch_disable 0",
	  "Duplicate feature prefetch_disable" },
	{ "/dev/a /dev/b 8 2 l2arc_rebuild 2", "l2arc_rebuild must be 0 or 1" },
	{ "/dev/a /dev/b 8 4 l2arc_rebuild 0 l2arc_rebuild 1",
	  "Duplicate feature l2arc_rebuild" },
	{ "/dev/a /dev/b 8 2 l2arc_write_max 12abc", "Tunable value is not a number" },
	{ "/dev/a /dev/b 8 2 l2arc_write_max -1", "Tunable value is not a number" },
	{ "/dev/a /dev/b 8 2 l2arc_noprefetch 2", "Tunable value out of range" },
	{ "/dev/a /dev/b 8 2 l2arc_write_max 18446744073709551616",
	  "Tunable value out of range" },
	{ "/dev/a /dev/b 8 2 l2arc_feed_secs 0", "Tunable value out of range" },
	{ "/dev/a /dev/b 8 4 l2arc_headroom 2 l2arc_headroom 2", "Duplicate tunable" },
	{ "/dev/a /dev/b 8 2 l2arc_meta_percent 5", "Unknown feature" },
	{ "/dev/a /dev/b 8 2 arc_min 65535", "arc_min is below 16 blocks" },
	{ "/dev/a /dev/b 8 2 arc_min 1m", "arc_min is not a number" },
	{ "/dev/a /dev/b 8 2 arc_min 18446744073709551616", "arc_min overflows" },
	{ "/dev/a /dev/b 8 2 arc_min 18446744073709551615",
	  "arc_min exceeds the machine's memory" },
	{ "/dev/a /dev/b 8 4 arc_min 65536 arc_min 65536", "Duplicate feature arc_min" },
	{ "/dev/a /dev/b 8 4 arc_min 131072 arc_max 65536", "arc_min exceeds arc_max" },
};

/* l2arc-pool lines: <cache|-> <block_size> [<#features> arc_max <bytes>] */
static const struct table_case bad_pool_lines[] = {
	{ "", "Not enough arguments: need <cache|-> <block_size>" },
	{ "-", "Not enough arguments: need <cache|-> <block_size>" },
	{ "- 12", "Block size is not a power of two" },
	{ "- 8 2 arc_max 65535", "arc_max is below 16 blocks" },
	{ "- 8 2 arc_min 65536", "arc_max is the only feature of a pool" },
	{ "- 8 2 prefetch_disable 1", "arc_max is the only feature of a pool" },
	{ "- 8 2 whatif 0", "arc_max is the only feature of a pool" },
	{ "- 8 2 l2arc_write_max 1048576", "arc_max is the only feature of a pool" },
	{ "- 8 3 arc_max 65536", "Not enough feature arguments" },
};

static void table_case_desc(const struct table_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "'%s'", c->line);
}

KUNIT_ARRAY_PARAM(bad_lines, bad_lines, table_case_desc);
KUNIT_ARRAY_PARAM(bad_pool_lines, bad_pool_lines, table_case_desc);

/* Split @line (copied into @buf) into words; return their number. */
static unsigned int split_words(char *buf, size_t size, const char *line,
				char **argv)
{
	unsigned int argc = 0;
	char *p = buf, *w;

	strscpy(buf, line, size);
	while ((w = strsep(&p, " ")) && argc < MAX_WORDS)
		if (*w)
			argv[argc++] = w;
	return argc;
}

static void table_rejects_malformed_line(struct kunit *test)
{
	const struct table_case *c = test->param_value;
	char buf[160], *argv[MAX_WORDS], *error = NULL;
	struct l2arc_table t;
	unsigned int argc;
	int r;

	argc = split_words(buf, sizeof(buf), c->line, argv);
	r = l2arc_parse_table(&t, argc, argv, &error);
	KUNIT_EXPECT_EQ(test, r, -EINVAL);
	KUNIT_ASSERT_NOT_NULL(test, error);
	KUNIT_EXPECT_STREQ(test, error, c->error);
	/* a failed parse leaves nothing to free */
	KUNIT_EXPECT_NULL(test, t.features);
}

static void table_rejects_malformed_pool_line(struct kunit *test)
{
	const struct table_case *c = test->param_value;
	char buf[160], *argv[MAX_WORDS], *error = NULL;
	struct l2arc_table t;
	unsigned int argc;
	int r;

	argc = split_words(buf, sizeof(buf), c->line, argv);
	r = l2arc_parse_pool_table(&t, argc, argv, &error);
	KUNIT_EXPECT_EQ(test, r, -EINVAL);
	KUNIT_ASSERT_NOT_NULL(test, error);
	KUNIT_EXPECT_STREQ(test, error, c->error);
	KUNIT_EXPECT_NULL(test, t.features);
}

static void table_parses_pool_line(struct kunit *test)
{
	char buf[64], *argv[MAX_WORDS], *error = NULL;
	struct l2arc_table t;
	unsigned int argc;

	argc = split_words(buf, sizeof(buf), "- 16 2 arc_max 1048576", argv);
	KUNIT_ASSERT_EQ(test, l2arc_parse_pool_table(&t, argc, argv, &error), 0);
	KUNIT_EXPECT_NULL(test, t.origin_path);
	KUNIT_EXPECT_NULL(test, t.cache_path);
	KUNIT_EXPECT_EQ(test, t.block_sectors, 16U);
	KUNIT_EXPECT_TRUE(test, t.arc_max_set);
	KUNIT_EXPECT_EQ(test, t.arc_max, 1048576ULL);
	KUNIT_EXPECT_STREQ(test, t.features, "2 arc_max 1048576");
	l2arc_table_free(&t);

	argc = split_words(buf, sizeof(buf), "/dev/nvme 8", argv);
	KUNIT_ASSERT_EQ(test, l2arc_parse_pool_table(&t, argc, argv, &error), 0);
	KUNIT_EXPECT_STREQ(test, t.cache_path, "/dev/nvme");
	KUNIT_EXPECT_FALSE(test, t.arc_max_set);
	KUNIT_EXPECT_NULL(test, t.features);
	l2arc_table_free(&t);
}

static void table_parses_arc_min(struct kunit *test)
{
	char buf[96], *argv[MAX_WORDS], *error = NULL;
	struct l2arc_table t;
	unsigned int argc;

	argc = split_words(buf, sizeof(buf),
			   "/dev/a /dev/pool 8 4 arc_min 4194304 arc_max 4194304",
			   argv);
	KUNIT_ASSERT_EQ(test, l2arc_parse_table(&t, argc, argv, &error), 0);
	KUNIT_EXPECT_TRUE(test, t.arc_min_set);
	KUNIT_EXPECT_EQ(test, t.arc_min, 4194304ULL);
	KUNIT_EXPECT_EQ(test, t.arc_max, 4194304ULL);
	l2arc_table_free(&t);
}

static void table_parses_full_line(struct kunit *test)
{
	char buf[160], *argv[MAX_WORDS], *error = NULL;
	struct l2arc_table t;
	unsigned int argc;

	argc = split_words(buf, sizeof(buf),
			   "/dev/hdd /dev/nvme 16 4 prefetch_disable 1 arc_max 1048576",
			   argv);
	KUNIT_ASSERT_EQ(test, l2arc_parse_table(&t, argc, argv, &error), 0);
	KUNIT_EXPECT_STREQ(test, t.origin_path, "/dev/hdd");
	KUNIT_EXPECT_STREQ(test, t.cache_path, "/dev/nvme");
	KUNIT_EXPECT_EQ(test, t.block_sectors, 16U);
	KUNIT_EXPECT_TRUE(test, t.arc_max_set);
	KUNIT_EXPECT_EQ(test, t.arc_max, 1048576ULL);
	KUNIT_EXPECT_TRUE(test, t.prefetch_disable_set);
	KUNIT_EXPECT_TRUE(test, t.prefetch_disable);
	KUNIT_EXPECT_STREQ(test, t.features,
			   "4 prefetch_disable 1 arc_max 1048576");
	l2arc_table_free(&t);
	KUNIT_EXPECT_NULL(test, t.features);
}

static void table_parses_tunables(struct kunit *test)
{
	char buf[160], *argv[MAX_WORDS], *error = NULL;
	struct l2arc_table t;
	unsigned int argc;

	argc = split_words(buf, sizeof(buf),
			   "/dev/a /dev/b 8 6 l2arc_write_max 419430400 l2arc_noprefetch 0 l2arc_feed_secs 3",
			   argv);
	KUNIT_ASSERT_EQ(test, l2arc_parse_table(&t, argc, argv, &error), 0);
	KUNIT_EXPECT_EQ(test, t.tun.set,
			BIT(L2ARC_P_WRITE_MAX - L2ARC_P_DEV_FIRST) |
			BIT(L2ARC_P_NOPREFETCH - L2ARC_P_DEV_FIRST) |
			BIT(L2ARC_P_FEED_SECS - L2ARC_P_DEV_FIRST));
	KUNIT_EXPECT_EQ(test, l2arc_dev_param(&t.tun, L2ARC_P_WRITE_MAX),
			419430400ULL);
	KUNIT_EXPECT_EQ(test, l2arc_dev_param(&t.tun, L2ARC_P_NOPREFETCH), 0ULL);
	KUNIT_EXPECT_EQ(test, l2arc_dev_param(&t.tun, L2ARC_P_FEED_SECS), 3ULL);
	/* not given: the module's value (its default here) */
	KUNIT_EXPECT_EQ(test, l2arc_dev_param(&t.tun, L2ARC_P_HEADROOM), 8ULL);
	KUNIT_EXPECT_EQ(test, l2arc_dev_param(&t.tun, L2ARC_P_WRITE_BOOST),
			33554432ULL);
	l2arc_table_free(&t);
}

static void table_parses_minimal_line(struct kunit *test)
{
	char buf[64], *argv[MAX_WORDS], *error = NULL;
	struct l2arc_table t;
	unsigned int argc;

	argc = split_words(buf, sizeof(buf), "8:16 - 2048", argv);
	KUNIT_ASSERT_EQ(test, l2arc_parse_table(&t, argc, argv, &error), 0);
	KUNIT_EXPECT_STREQ(test, t.origin_path, "8:16");
	KUNIT_EXPECT_NULL(test, t.cache_path);
	KUNIT_EXPECT_EQ(test, t.block_sectors, 2048U);
	KUNIT_EXPECT_FALSE(test, t.arc_max_set);
	KUNIT_EXPECT_FALSE(test, t.prefetch_disable_set);
	KUNIT_EXPECT_NULL(test, t.features);
	l2arc_table_free(&t);
}

static void table_parses_zero_features(struct kunit *test)
{
	char buf[64], *argv[MAX_WORDS], *error = NULL;
	struct l2arc_table t;
	unsigned int argc;

	argc = split_words(buf, sizeof(buf), "/dev/a /dev/b 8 0", argv);
	KUNIT_ASSERT_EQ(test, l2arc_parse_table(&t, argc, argv, &error), 0);
	KUNIT_EXPECT_STREQ(test, t.features, "0");
	l2arc_table_free(&t);
}

static void table_block_size_bounds(struct kunit *test)
{
	static const char * const sizes[] = { "8", "16", "32", "64", "128",
					      "256", "512", "1024", "2048" };
	char *argv[3] = { "/dev/a", "-", NULL }, *error = NULL;
	struct l2arc_table t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		argv[2] = (char *)sizes[i];
		KUNIT_ASSERT_EQ(test, l2arc_parse_table(&t, 3, argv, &error), 0);
		KUNIT_EXPECT_EQ(test, t.block_sectors, 8U << i);
		l2arc_table_free(&t);
	}
}

static struct kunit_case table_cases[] = {
	KUNIT_CASE_PARAM(table_rejects_malformed_line, bad_lines_gen_params),
	KUNIT_CASE_PARAM(table_rejects_malformed_pool_line,
			 bad_pool_lines_gen_params),
	KUNIT_CASE(table_parses_pool_line),
	KUNIT_CASE(table_parses_arc_min),
	KUNIT_CASE(table_parses_full_line),
	KUNIT_CASE(table_parses_tunables),
	KUNIT_CASE(table_parses_minimal_line),
	KUNIT_CASE(table_parses_zero_features),
	KUNIT_CASE(table_block_size_bounds),
	{}
};

static struct kunit_suite table_suite = {
	.name = "dm_l2arc_table",
	.test_cases = table_cases,
};

kunit_test_suite(table_suite);
