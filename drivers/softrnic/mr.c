// SPDX-License-Identifier: GPL-2.0
/*
 * softrnic: memory regions and STags. An STag is index << 8 | key: the
 * index finds the MR in sdev->mr_xa (RCU lookups, references per use), the
 * key byte must match the MR's current STag. Memory behind an MR: kernel
 * virtual addresses (DMA MR; fast-reg pages, since the device uses virtual
 * DMA addresses), or the pinned pages of an ib_umem.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "sr_verbs.h"

#define SR_STAG_INDEX_MAX	((1U << 24) - 1)

static void sr_mr_release(struct kref *ref)
{
	complete(&container_of(ref, struct sr_mr, ref)->freed);
}

struct sr_mr *sr_mr_get(struct sr_dev *sdev, u32 stag)
{
	struct sr_mr *mr;

	rcu_read_lock();
	mr = xa_load(&sdev->mr_xa, stag >> 8);
	if (mr && !kref_get_unless_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (mr && READ_ONCE(mr->stag) != stag) {
		sr_mr_put(mr);
		return NULL;
	}
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(sr_mr_get);

void sr_mr_put(struct sr_mr *mr)
{
	kref_put(&mr->ref, sr_mr_release);
}
EXPORT_SYMBOL_IF_KUNIT(sr_mr_put);

int sr_mr_check(struct sr_mr *mr, struct ib_pd *pd, u64 addr, u64 len,
		int access)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&mr->lock, flags);
	if (!mr->valid)
		ret = -ENOENT;
	else if (mr->ibmr.pd != pd || (access & ~mr->access))
		ret = -EACCES;
	else if (addr < mr->iova || len > mr->length ||
		 addr - mr->iova > mr->length - len)
		ret = -ERANGE;
	spin_unlock_irqrestore(&mr->lock, flags);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sr_mr_check);

static struct page *sr_kva_page(u64 kva)
{
	void *p = (void *)(uintptr_t)kva;

	if (is_vmalloc_addr(p))
		return vmalloc_to_page(p);
	if (virt_addr_valid(p))
		return virt_to_page(p);
	return NULL;
}

/* The page and offset of byte @off of a user MR. */
static struct page *sr_umem_page(struct ib_umem *umem, u64 off, u32 *poff)
{
	struct scatterlist *sg;
	unsigned int i;

	off += ib_umem_offset(umem);
	for_each_sgtable_sg(&umem->sgt_append.sgt, sg, i) {
		if (off < sg->length) {
			off += sg->offset;
			*poff = offset_in_page(off);
			return nth_page(sg_page(sg), off >> PAGE_SHIFT);
		}
		off -= sg->length;
	}
	return NULL;
}

/* The page and offset of byte @off (from the registered iova) of @mr. */
static struct page *sr_mr_page(struct sr_mr *mr, u64 off, u32 *poff)
{
	u64 kva;

	switch (mr->type) {
	case SR_MR_DMA:
		kva = mr->iova + off;
		break;
	case SR_MR_USER:
		return sr_umem_page(mr->umem, off, poff);
	case SR_MR_FAST:
		off += mr->iova & (mr->page_size - 1);
		if (off / mr->page_size >= mr->npages)
			return NULL;
		kva = mr->pages[off / mr->page_size] + off % mr->page_size;
		break;
	default:
		return NULL;
	}
	*poff = offset_in_page(kva);
	return sr_kva_page(kva);
}

int sr_mr_bvec(struct sr_mr *mr, u64 addr, u32 len, struct bio_vec *bv,
	       unsigned int max)
{
	u64 off = addr - READ_ONCE(mr->iova);
	unsigned int n = 0;

	while (len) {
		struct page *page;
		u32 poff, chunk;

		if (n == max)
			return -E2BIG;
		page = sr_mr_page(mr, off, &poff);
		if (!page)
			return -EFAULT;
		chunk = min_t(u32, len, PAGE_SIZE - poff);
		bvec_set_page(&bv[n++], page, chunk, poff);
		off += chunk;
		len -= chunk;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(sr_mr_bvec);

int sr_mr_copy(struct sr_mr *mr, u64 addr, void *buf, u32 len, bool to_mem)
{
	struct bio_vec bv;
	int ret;

	while (len) {
		/* Where the next byte is; then up to the end of its page. */
		ret = sr_mr_bvec(mr, addr, 1, &bv, 1);
		if (ret < 0)
			return ret;
		bv.bv_len = min_t(u32, len, PAGE_SIZE - bv.bv_offset);
		if (to_mem)
			memcpy_to_page(bv.bv_page, bv.bv_offset, buf,
				       bv.bv_len);
		else
			memcpy_from_page(buf, bv.bv_page, bv.bv_offset,
					 bv.bv_len);
		buf += bv.bv_len;
		addr += bv.bv_len;
		len -= bv.bv_len;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sr_mr_copy);

s64 sr_sge_len(const struct siw_sge *sge, u32 num_sge)
{
	u64 total = 0;
	u32 i;

	for (i = 0; i < num_sge; i++)
		total += sge[i].length;
	return total > U32_MAX ? -EINVAL : (s64)total;
}
EXPORT_SYMBOL_IF_KUNIT(sr_sge_len);

/* Check and copy @len bytes at @addr of the MR named by @stag. */
static int sr_stag_access(struct sr_dev *sdev, struct ib_pd *pd, u32 stag,
			  u64 addr, void *buf, u32 len, int access,
			  bool to_mem)
{
	struct sr_mr *mr = sr_mr_get(sdev, stag);
	int ret;

	if (!mr)
		return -ENOENT;
	ret = sr_mr_check(mr, pd, addr, len, access);
	if (!ret)
		ret = sr_mr_copy(mr, addr, buf, len, to_mem);
	sr_mr_put(mr);
	return ret;
}

int sr_sge_copy(struct sr_qp *qp, const struct siw_sge *sge, u32 num_sge,
		u32 offset, void *buf, u32 len, bool to_mem)
{
	int access = to_mem ? IB_ACCESS_LOCAL_WRITE : 0;
	u32 i;
	int ret;

	for (i = 0; i < num_sge && len; i++) {
		u32 chunk;

		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		chunk = min(len, sge[i].length - offset);
		ret = sr_stag_access(qp->sdev, qp->ibqp.pd, sge[i].lkey,
				     sge[i].laddr + offset, buf, chunk,
				     access, to_mem);
		if (ret)
			return ret;
		offset = 0;
		buf += chunk;
		len -= chunk;
	}
	return len ? -EMSGSIZE : 0;
}
EXPORT_SYMBOL_IF_KUNIT(sr_sge_copy);

int sr_stag_copy(struct sr_qp *qp, u32 stag, u64 addr, void *buf, u32 len,
		 int access, bool to_mem)
{
	return sr_stag_access(qp->sdev, qp->ibqp.pd, stag, addr, buf, len,
			      access, to_mem);
}
EXPORT_SYMBOL_IF_KUNIT(sr_stag_copy);

enum siw_wc_status sr_mem_status(int err)
{
	switch (err) {
	case 0:
		return SIW_WC_SUCCESS;
	case -EMSGSIZE:
		return SIW_WC_LOC_LEN_ERR;
	case -ENOENT:
	case -EACCES:
	case -ERANGE:
	case -EFAULT:
		return SIW_WC_LOC_PROT_ERR;
	default:
		return SIW_WC_GENERAL_ERR;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sr_mem_status);

int sr_stag_invalidate(struct sr_qp *qp, u32 stag, bool remote)
{
	struct sr_mr *mr = sr_mr_get(qp->sdev, stag);
	unsigned long flags;
	int ret = 0;

	if (!mr)
		return -ENOENT;
	spin_lock_irqsave(&mr->lock, flags);
	/* Only fast-reg MRs can be invalidated, by a QP of their PD. */
	if (mr->type != SR_MR_FAST || mr->ibmr.pd != qp->ibqp.pd)
		ret = -EACCES;
	else
		mr->valid = false;
	spin_unlock_irqrestore(&mr->lock, flags);
	sr_mr_put(mr);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sr_stag_invalidate);

/* IB_WR_REG_MR: make the mapping of map_mr_sg valid under the WR's key. */
int sr_mr_fastreg(struct sr_qp *qp, const struct siw_sqe *sqe)
{
	struct sr_mr *mr = to_sr_mr((struct ib_mr *)(uintptr_t)sqe->base_mr);
	unsigned long flags;
	int ret = 0;

	if (mr->sdev != qp->sdev || mr->type != SR_MR_FAST)
		return -EINVAL;
	spin_lock_irqsave(&mr->lock, flags);
	if (mr->valid || mr->ibmr.pd != qp->ibqp.pd ||
	    (sqe->rkey >> 8) != (mr->stag >> 8) || !mr->map_npages) {
		ret = -EINVAL;
	} else {
		/* Invalid: no data path reads the registration now. */
		memcpy(mr->pages, mr->map_pages,
		       mr->map_npages * sizeof(*mr->pages));
		mr->npages = mr->map_npages;
		mr->page_size = mr->map_page_size;
		WRITE_ONCE(mr->stag, sqe->rkey);
		WRITE_ONCE(mr->iova, mr->ibmr.iova);
		mr->length = mr->ibmr.length;
		mr->access = sqe->access;
		mr->valid = true;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return ret;
}

static struct sr_mr *sr_mr_alloc(struct ib_pd *ibpd, enum sr_mr_type type,
				 u8 key)
{
	struct sr_dev *sdev = to_sr_dev(ibpd->device);
	struct sr_mr *mr;
	u32 idx;
	int ret;

	if (atomic_inc_return(&sdev->num_mr) > SR_MAX_MR) {
		ret = -ENOMEM;
		goto out_count;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		ret = -ENOMEM;
		goto out_count;
	}
	mr->sdev = sdev;
	mr->type = type;
	mr->ibmr.pd = ibpd;
	kref_init(&mr->ref);
	init_completion(&mr->freed);
	spin_lock_init(&mr->lock);
	ret = xa_alloc_cyclic(&sdev->mr_xa, &idx, mr,
			      XA_LIMIT(1, SR_STAG_INDEX_MAX), &sdev->mr_next,
			      GFP_KERNEL);
	if (ret < 0) {
		kfree(mr);
		goto out_count;
	}
	mr->stag = idx << 8 | key;
	mr->ibmr.lkey = mr->stag;
	mr->ibmr.rkey = mr->stag;
	return mr;

out_count:
	atomic_dec(&sdev->num_mr);
	return ERR_PTR(ret);
}

/* Unpublish, wait for the engine's references, free (after RCU). */
static void sr_mr_destroy(struct sr_mr *mr)
{
	struct sr_dev *sdev = mr->sdev;

	xa_erase(&sdev->mr_xa, mr->stag >> 8);
	sr_mr_put(mr);
	wait_for_completion(&mr->freed);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kfree(mr->pages);
	kfree(mr->map_pages);
	kfree_rcu(mr, rcu);
	atomic_dec(&sdev->num_mr);
}

struct ib_mr *sr_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sr_mr *mr = sr_mr_alloc(ibpd, SR_MR_DMA, get_random_u8());

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->access = access;
	mr->valid = true;
	return &mr->ibmr;
}

struct ib_mr *sr_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 len,
			     u64 iova, int access, struct ib_udata *udata)
{
	struct siw_ureq_reg_mr ureq = {};
	struct siw_uresp_reg_mr uresp = {};
	struct ib_umem *umem;
	struct sr_mr *mr;
	int ret;

	if (!len || len > SR_MAX_MR_SIZE || iova + len < iova)
		return ERR_PTR(-EINVAL);
	if (udata && udata->inlen) {
		ret = ib_copy_from_udata(&ureq, udata,
					 min(sizeof(ureq), udata->inlen));
		if (ret)
			return ERR_PTR(ret);
	}
	umem = ib_umem_get(ibpd->device, start, len, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	mr = sr_mr_alloc(ibpd, SR_MR_USER, ureq.stag_key);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	mr->umem = umem;
	mr->iova = iova;
	mr->length = len;
	mr->access = access;
	mr->valid = true;
	if (udata && udata->outlen) {
		uresp.stag = mr->stag;
		ret = ib_copy_to_udata(udata, &uresp,
				       min(sizeof(uresp), udata->outlen));
		if (ret) {
			sr_mr_destroy(mr);
			return ERR_PTR(ret);
		}
	}
	return &mr->ibmr;
}

struct ib_mr *sr_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			  u32 max_num_sg)
{
	struct sr_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > SR_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = sr_mr_alloc(ibpd, SR_MR_FAST, get_random_u8());
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	mr->map_pages = kcalloc(max_num_sg, sizeof(*mr->map_pages),
				GFP_KERNEL);
	if (!mr->pages || !mr->map_pages) {
		sr_mr_destroy(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_pages = max_num_sg;
	return &mr->ibmr;
}

static int sr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sr_mr *mr = to_sr_mr(ibmr);

	if (mr->map_npages == mr->max_pages)
		return -ENOMEM;
	mr->map_pages[mr->map_npages++] = addr;
	return 0;
}

/*
 * Stage a mapping for the next REG_MR, which publishes it. The MR may still
 * be valid (its LOCAL_INV queued ahead of that REG_MR): the registration in
 * use is not touched.
 */
int sr_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		 unsigned int *sg_offset)
{
	struct sr_mr *mr = to_sr_mr(ibmr);
	int n;

	if (ibmr->page_size < PAGE_SIZE)	/* copies go page by page */
		return -EINVAL;
	mr->map_npages = 0;
	n = ib_sg_to_pages(ibmr, sg, nents, sg_offset, sr_set_page);
	mr->map_page_size = ibmr->page_size;
	return n;
}

int sr_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	sr_mr_destroy(to_sr_mr(ibmr));
	return 0;
}
