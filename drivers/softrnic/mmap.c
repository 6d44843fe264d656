// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic: the rings of CQs, QPs and SRQs. A ring shared with rdma-core's
 * siw provider is vmalloc_user() memory; its mmap key is the offset of an
 * rdma_user_mmap_entry of the user context. A kernel object's ring is
 * never mapped: kvzalloc(), which for the small rings kernel ULPs ask for
 * is one slab object instead of whole vmalloc pages (and their mapping,
 * the TLB flush on free, the vmap area's lock). The ring belongs to its
 * object, which frees it with sr_ring_free() on destroy; pages still
 * mapped by a process keep their own reference.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "sr_verbs.h"

struct sr_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *addr;
};

void *sr_ring_alloc(size_t len, bool user)
{
	return user ? vmalloc_user(len) : kvzalloc(len, GFP_KERNEL);
}

void sr_ring_free(void *ring)
{
	kvfree(ring);
}

/* Returns the mmap key for rdma-core, SIW_INVAL_UOBJ_KEY on failure. */
u64 sr_mmap_insert(struct ib_udata *udata, void *addr, size_t len,
		   struct rdma_user_mmap_entry **entry)
{
	struct sr_ucontext *uctx = rdma_udata_to_drv_context(udata,
						struct sr_ucontext, ibuc);
	struct sr_mmap_entry *e;

	*entry = NULL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return SIW_INVAL_UOBJ_KEY;
	e->addr = addr;
	if (rdma_user_mmap_entry_insert(&uctx->ibuc, &e->rdma,
					PAGE_ALIGN(len))) {
		kfree(e);
		return SIW_INVAL_UOBJ_KEY;
	}
	*entry = &e->rdma;
	return rdma_user_mmap_get_offset(&e->rdma);
}

void sr_mmap_remove(struct rdma_user_mmap_entry *entry)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
}

void sr_mmap_free(struct rdma_user_mmap_entry *entry)
{
	kfree(container_of(entry, struct sr_mmap_entry, rdma));
}

int sr_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct sr_mmap_entry *e;
	int ret;

	entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!entry)
		return -EINVAL;
	e = container_of(entry, struct sr_mmap_entry, rdma);
	ret = remap_vmalloc_range(vma, e->addr, 0);
	rdma_user_mmap_entry_put(entry);
	return ret;
}
