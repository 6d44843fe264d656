// SPDX-License-Identifier: GPL-2.0
/*
 * mtu_bench: the cost of one MTU change, as the task that makes it pays it.
 *
 * rdma_cm registers a netdevice notifier (rdma_cm/track.c); it runs under
 * RTNL in the context of whoever changes a netdev, so its cost is added to
 * every `ip link set ... mtu` on the machine, RDMA or not. The index keeps
 * that cost flat: an MTU change looks up the changed netdev's entry and
 * visits only the ids bound to it. This module measures it: each change is
 * one dev_set_mtu() under RTNL, timed with ktime_get_ns() around the call
 * (every notifier of the chain, ours included, runs inside it); the
 * changes alternate between two MTUs. tools/bench/guest.sh runs it with 10
 * and with 10,000 live connections held on another netdev, on both stacks.
 *
 * Control: write "dev=NAME mtu=A,B rounds=R" to
 * /sys/kernel/debug/mtu_bench/ctl, in the netns of the netdev; the write
 * returns when done. /sys/kernel/debug/mtu_bench/results then reads
 * "changes=R p10_ns=.. p50_ns=.. p90_ns=.. max_ns=..".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#define MB_MAX_ROUNDS	10000

static struct dentry *mb_dir;
/* mb_mutex: one measurement at a time, and mb_result. */
static DEFINE_MUTEX(mb_mutex);
static char mb_result[160];

static int mb_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

struct mb_args {
	char		dev[IFNAMSIZ];
	unsigned int	mtu[2];
	unsigned int	rounds;
};

static int mb_parse(char *buf, struct mb_args *a)
{
	char *tok, *val;
	int n = 0;

	while ((tok = strsep(&buf, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "dev")) {
			if (strscpy(a->dev, val, sizeof(a->dev)) < 0)
				return -EINVAL;
			n |= 1;
		} else if (!strcmp(tok, "mtu")) {
			if (sscanf(val, "%u,%u", &a->mtu[0], &a->mtu[1]) != 2)
				return -EINVAL;
			n |= 2;
		} else if (!strcmp(tok, "rounds")) {
			if (kstrtouint(val, 0, &a->rounds))
				return -EINVAL;
			n |= 4;
		} else {
			return -EINVAL;
		}
	}
	if (n != 7 || !a->rounds || a->rounds > MB_MAX_ROUNDS)
		return -EINVAL;
	return 0;
}

static int mb_run(const struct mb_args *a)
{
	struct net *net = current->nsproxy->net_ns;
	struct net_device *ndev;
	unsigned int i, n = a->rounds;
	u64 *t, t0;
	int ret = 0;

	t = kvcalloc(n, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	ndev = dev_get_by_name(net, a->dev);
	if (!ndev) {
		ret = -ENODEV;
		goto out_free;
	}
	for (i = 0; i < n; i++) {
		rtnl_lock();
		t0 = ktime_get_ns();
		ret = dev_set_mtu(ndev, a->mtu[i & 1]);
		t[i] = ktime_get_ns() - t0;
		rtnl_unlock();
		if (ret)
			goto out_put;
		cond_resched();
	}
	sort(t, n, sizeof(*t), mb_cmp, NULL);
	snprintf(mb_result, sizeof(mb_result),
		 "changes=%u p10_ns=%llu p50_ns=%llu p90_ns=%llu max_ns=%llu\n",
		 n, t[n / 10], t[n / 2], t[n * 9 / 10], t[n - 1]);
out_put:
	dev_put(ndev);
out_free:
	kvfree(t);
	return ret;
}

static ssize_t mb_ctl_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct mb_args a = {};
	char *buf;
	int ret;

	if (len > 256)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = mb_parse(buf, &a);
	kfree(buf);
	if (ret)
		return ret;
	mutex_lock(&mb_mutex);
	mb_result[0] = '\0';
	ret = mb_run(&a);
	mutex_unlock(&mb_mutex);
	return ret ?: len;
}

static ssize_t mb_results_read(struct file *file, char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&mb_mutex);
	ret = simple_read_from_buffer(ubuf, len, ppos, mb_result,
				      strlen(mb_result));
	mutex_unlock(&mb_mutex);
	return ret;
}

static const struct file_operations mb_ctl_fops = {
	.owner = THIS_MODULE,
	.write = mb_ctl_write,
};

static const struct file_operations mb_results_fops = {
	.owner = THIS_MODULE,
	.read = mb_results_read,
};

static int __init mb_init(void)
{
	mb_dir = debugfs_create_dir("mtu_bench", NULL);
	debugfs_create_file("ctl", 0200, mb_dir, NULL, &mb_ctl_fops);
	debugfs_create_file("results", 0400, mb_dir, NULL, &mb_results_fops);
	return 0;
}

static void __exit mb_exit(void)
{
	debugfs_remove_recursive(mb_dir);
}

module_init(mb_init);
module_exit(mb_exit);
MODULE_DESCRIPTION("Cost of a netdev MTU change under rdma_cm's notifiers");
MODULE_LICENSE("GPL");
