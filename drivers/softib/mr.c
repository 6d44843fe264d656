// SPDX-License-Identifier: GPL-2.0
/*
 * softib: ib_map_mr_sg() of a fast-registration MR, at the page size the
 * ULP asks for.
 *
 * rdmavt's own map_mr_sg records every page ib_sg_to_pages() hands it as a
 * PAGE_SIZE segment, whatever the page size was: an MR that RNBD maps with
 * 128 KiB pages describes 4 KiB of each of them, and a WRITE through it runs
 * off its segments (issue 42). Here each page becomes one segment of the
 * page size asked for, and the region's page_shift says so, which is how
 * rvt_rkey_ok() and rvt_lkey_ok() find the segment of an offset and how
 * rvt_update_sge() steps from one segment to the next.
 *
 * The addresses are kernel virtual: rdmavt registers without a DMA device,
 * so ib_dma_map_sg() gives every entry its virtual address (ib_core's virt
 * DMA). The first page may start before the data (the region's offset says
 * where it begins), the last may end after it; the region's length keeps
 * every access inside the data.
 *
 * A page size outside SOFTIB_MR_PAGE_SIZES is refused (-EINVAL) and leaves
 * an MR of length 0, so a REG_MR posted after a failed map gives an MR that
 * nothing can reach. A list that does not fit (a misaligned or discontiguous
 * middle entry, more pages than the MR was allocated for) maps its largest
 * prefix and returns how many entries that is, as ib_map_mr_sg() promises.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <rdma/rdmavt_mr.h>
#include "softib.h"

/*
 * rdmavt's MR (drivers/infiniband/sw/rdmavt/mr.h, not an installed
 * header): the ib_mr, the user memory, then the region. The same layout
 * since rdmavt began; softib_mregion() checks what it can of it.
 */
struct softib_rvt_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	struct rvt_mregion mr;	/* last: its segment arrays follow */
};

static struct rvt_mregion *softib_mregion(struct ib_mr *ibmr)
{
	struct rvt_mregion *mr = &container_of(ibmr, struct softib_rvt_mr,
					       ibmr)->mr;

	/* rvt_fast_reg_mr() keeps the key's upper 24 bits; so do we. */
	if (WARN_ONCE(mr->pd != ibmr->pd ||
		      (mr->lkey ^ ibmr->lkey) & ~0xffU ||
		      (u64)mr->mapsz * RVT_SEGSZ < mr->max_segs,
		      "softib: not rdmavt's MR layout\n"))
		return NULL;
	return mr;
}

/* Segment i of mr (i below mr->max_segs). */
static struct rvt_seg *softib_mr_seg(struct rvt_mregion *mr, u32 i)
{
	return &mr->map[i / RVT_SEGSZ]->segs[i % RVT_SEGSZ];
}

/*
 * ib_sg_to_pages()'s callback, once per page in order. While the mapping
 * runs, mr->length counts the segments filled; softib_map_mr_sg() makes it
 * the byte length afterwards.
 */
static int softib_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rvt_mregion *mr = softib_mregion(ibmr);
	struct rvt_seg *seg;

	if (!mr || mr->length >= mr->max_segs)
		return -ENOMEM;
	seg = softib_mr_seg(mr, mr->length);
	seg->vaddr = (void *)(uintptr_t)addr;
	seg->length = ibmr->page_size;
	mr->length++;
	return 0;
}

/* ib_device_ops.map_mr_sg: ib_map_mr_sg() set ibmr->page_size. */
int softib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		     int sg_nents, unsigned int *sg_offset)
{
	struct rvt_mregion *mr = softib_mregion(ibmr);
	u32 page_size = ibmr->page_size;
	struct rvt_seg *first;
	size_t nsegs;
	int n;

	if (!mr)
		return -EINVAL;
	/* Until the new map is complete the region reaches nothing. */
	mr->length = 0;
	if (!is_power_of_2(page_size) ||
	    !(SOFTIB_MR_PAGE_SIZES & page_size)) {
		ibmr->length = 0;
		return -EINVAL;
	}
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, softib_mr_set_page);
	nsegs = mr->length;
	mr->length = 0;
	if (!nsegs) {
		ibmr->length = 0;
		return n < 0 ? n : -EINVAL;
	}
	first = softib_mr_seg(mr, 0);
	/* ib_sg_to_pages() starts the first page at or before the iova. */
	if (WARN_ON_ONCE(ibmr->iova < (uintptr_t)first->vaddr ||
			 ibmr->iova - (uintptr_t)first->vaddr +
			 ibmr->length > (u64)nsegs * page_size)) {
		ibmr->length = 0;
		return -EINVAL;
	}
	mr->page_shift = ilog2(page_size);
	mr->user_base = ibmr->iova;
	mr->iova = ibmr->iova;
	mr->offset = ibmr->iova - (uintptr_t)first->vaddr;
	mr->length = ibmr->length;
	return n;
}
