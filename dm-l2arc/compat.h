/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-l2arc: the differences between the kernels we build for (Debian 12's
 * 6.1 and 6.12), in one place.  Each is keyed on a symbol that the newer
 * API brought with it (checkpatch rejects LINUX_VERSION_CODE tests).
 *
 * Shrinkers: 6.1 embeds struct shrinker in its user and registers it with
 * register_shrinker(); 6.7 and later allocate it with shrinker_alloc() and
 * pass the user's pointer in ->private_data; SHRINKER_ALLOCATED came with
 * that API.  l2arc_shrinker_*() hide the difference.
 */
#ifndef DM_L2ARC_COMPAT_H
#define DM_L2ARC_COMPAT_H

#include <linux/blkdev.h>
#include <linux/shrinker.h>

/*
 * Opening a device for writing: 6.5 and later pass a blk_mode_t with
 * BLK_OPEN_WRITE to dm_get_device(), 6.1 an fmode_t with FMODE_WRITE.
 */
#ifdef BLK_OPEN_WRITE
#define L2ARC_OPEN_WRITE	BLK_OPEN_WRITE
#else
#define L2ARC_OPEN_WRITE	FMODE_WRITE
#endif

/*
 * When the block layer counts a bio-based driver's sectors (dm, md): at
 * the bio's start before 6.3, at its end from then on (origin.c).  Of our
 * two kernels, BLK_OPEN_WRITE (6.5) marks the newer.
 */
#ifdef BLK_OPEN_WRITE
#define L2ARC_BIO_ACCT_AT_START	false
#else
#define L2ARC_BIO_ACCT_AT_START	true
#endif

#ifdef SHRINKER_ALLOCATED	/* 6.7 and later */

/**
 * struct l2arc_shrinker - a shrinker and the object it shrinks
 * @s: the kernel's shrinker, allocated by l2arc_shrinker_register()
 */
struct l2arc_shrinker {
	struct shrinker *s;
};

static inline int l2arc_shrinker_register(struct l2arc_shrinker *ls,
					  unsigned long (*count)(struct shrinker *,
								 struct shrink_control *),
					  unsigned long (*scan)(struct shrinker *,
								struct shrink_control *),
					  void *private, const char *name)
{
	ls->s = shrinker_alloc(0, "dm-l2arc:%s", name);
	if (!ls->s)
		return -ENOMEM;
	ls->s->count_objects = count;
	ls->s->scan_objects = scan;
	ls->s->private_data = private;
	shrinker_register(ls->s);
	return 0;
}

static inline void l2arc_shrinker_unregister(struct l2arc_shrinker *ls)
{
	if (ls->s)
		shrinker_free(ls->s);
	ls->s = NULL;
}

static inline void *l2arc_shrinker_private(struct shrinker *s)
{
	return s->private_data;
}

#else	/* 6.1 */

struct l2arc_shrinker {
	struct shrinker s;
	void *private;
	bool registered;
};

static inline int l2arc_shrinker_register(struct l2arc_shrinker *ls,
					  unsigned long (*count)(struct shrinker *,
								 struct shrink_control *),
					  unsigned long (*scan)(struct shrinker *,
								struct shrink_control *),
					  void *private, const char *name)
{
	int r;

	ls->s.count_objects = count;
	ls->s.scan_objects = scan;
	ls->s.seeks = DEFAULT_SEEKS;
	ls->private = private;
	r = register_shrinker(&ls->s, "dm-l2arc:%s", name);
	ls->registered = !r;
	return r;
}

static inline void l2arc_shrinker_unregister(struct l2arc_shrinker *ls)
{
	if (ls->registered)
		unregister_shrinker(&ls->s);
	ls->registered = false;
}

static inline void *l2arc_shrinker_private(struct shrinker *s)
{
	return container_of(s, struct l2arc_shrinker, s)->private;
}

#endif

#endif /* DM_L2ARC_COMPAT_H */
