// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_umad: the file operations of /dev/infiniband/umadN.
 *
 * A write() is one MAD to send: a struct ib_user_mad_hdr (or its _old
 * prefix, before ENABLE_PKEY) naming the agent and the destination, then
 * the MAD.  A read() returns one MAD in the same format: a received MAD,
 * a response to one of the file's requests, or a request of the file
 * that got no response (status ETIMEDOUT, the MAD header only).
 */

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/nsproxy.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "user_mad.h"

/* The common MAD header and the RMPP header behind it. */
struct umad_rmpp_hdr {
	struct ib_mad_hdr mad_hdr;
	struct ib_rmpp_hdr rmpp_hdr;
} __packed;

void umad_packet_free(struct umad_packet *packet)
{
	if (packet->recv_wc)
		ib_free_recv_mad(packet->recv_wc);
	kfree(packet);
}

/* Free what waits for read(); no handler may queue more meanwhile. */
static void recv_list_drain(struct umad_file *file)
{
	struct umad_packet *packet, *next;
	LIST_HEAD(packets);

	mutex_lock(&file->lock);
	list_splice_init(&file->recv_list, &packets);
	file->recv_count = 0;
	mutex_unlock(&file->lock);

	list_for_each_entry_safe(packet, next, &packets, node)
		umad_packet_free(packet);
}

/**
 * umad_file_kill() - detach @file from its removed port
 * @file: a file of the port
 *
 * Its agents go, and with them what they received: readers get -EIO.
 * The file itself stays until it is closed.  Under port->lock.
 */
void umad_file_kill(struct umad_file *file)
{
	umad_agents_release(file);
	recv_list_drain(file);
}

/* ---------------------------------------------------------------- */
/* open and close                                                    */

static int umad_open(struct inode *inode, struct file *filp)
{
	struct umad_port *port =
		container_of(inode->i_cdev, struct umad_port, cdev);
	struct umad_file *file;
	int ret = 0;

	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	file->port = port;
	mutex_init(&file->lock);
	INIT_LIST_HEAD(&file->recv_list);
	init_waitqueue_head(&file->recv_wait);
	spin_lock_init(&file->send_lock);
	INIT_LIST_HEAD(&file->send_list);

	/* Under port->lock, removal either refuses us or will see us. */
	mutex_lock(&port->lock);
	if (!port->ib_dev) {
		ret = -ENXIO;
	} else if (!rdma_dev_access_netns(port->ib_dev,
					  current->nsproxy->net_ns)) {
		ret = -EPERM;
	} else {
		list_add_tail(&file->node, &port->files);
		get_device(&port->dev);
	}
	mutex_unlock(&port->lock);
	if (ret) {
		mutex_destroy(&file->lock);
		kfree(file);
		return ret;
	}

	filp->private_data = file;
	return stream_open(inode, filp);
}

static int umad_release(struct inode *inode, struct file *filp)
{
	struct umad_file *file = filp->private_data;
	struct umad_port *port = file->port;

	mutex_lock(&port->lock);
	list_del(&file->node);
	umad_agents_release(file);
	mutex_unlock(&port->lock);

	/* Unregistering flushed every send: only received MADs are left. */
	recv_list_drain(file);
	WARN_ON(!list_empty(&file->send_list));

	mutex_destroy(&file->lock);
	kfree(file);
	put_device(&port->dev);
	return 0;
}

/* ---------------------------------------------------------------- */
/* read                                                              */

static bool umad_readable(struct umad_file *file)
{
	return READ_ONCE(file->dead) || !list_empty(&file->recv_list);
}

/* The next packet to read, waiting for one unless @nonblock. */
static struct umad_packet *recv_list_pop(struct umad_file *file,
					 bool nonblock)
{
	struct umad_packet *packet;

	mutex_lock(&file->lock);
	while (!file->dead && list_empty(&file->recv_list)) {
		mutex_unlock(&file->lock);
		if (nonblock)
			return ERR_PTR(-EAGAIN);
		if (wait_event_interruptible(file->recv_wait,
					     umad_readable(file)))
			return ERR_PTR(-ERESTARTSYS);
		mutex_lock(&file->lock);
	}
	if (file->dead) {
		packet = ERR_PTR(-EIO);
	} else {
		packet = list_first_entry(&file->recv_list,
					  struct umad_packet, node);
		list_del(&packet->node);
		file->recv_count--;
	}
	mutex_unlock(&file->lock);
	return packet;
}

/* A read() that failed leaves its packet first in line for the next. */
static void recv_list_push_front(struct umad_file *file,
				 struct umad_packet *packet)
{
	mutex_lock(&file->lock);
	list_add(&packet->node, &file->recv_list);
	file->recv_count++;
	mutex_unlock(&file->lock);
}

/*
 * A received MAD: header, then the MAD.  A message reassembled by RMPP
 * comes in segments; each after the first repeats the MAD and class
 * headers, which are left out.  A buffer too small for the whole message
 * but big enough for the first segment gets the header and that segment
 * (whose RMPP header carries the message length) and -ENOSPC, so the
 * reader can come back with a bigger one.
 */
static ssize_t copy_recv_mad(struct umad_file *file, char __user *buf,
			     struct umad_packet *packet, size_t count)
{
	struct ib_mad_recv_wc *recv_wc = packet->recv_wc;
	struct ib_mad_recv_buf *seg = &recv_wc->recv_buf;
	size_t hdr_size = umad_hdr_size(file);
	size_t seg_size = recv_wc->mad_seg_size;
	size_t first = min_t(size_t, packet->length, seg_size);
	size_t left, chunk, offset;

	if (count < hdr_size + first)
		return -EINVAL;
	if (copy_to_user(buf, &packet->umad.hdr, hdr_size))
		return -EFAULT;
	buf += hdr_size;
	if (copy_to_user(buf, seg->mad, first))
		return -EFAULT;
	buf += first;
	if (first == packet->length)
		return hdr_size + first;

	if (count < hdr_size + packet->length)
		return -ENOSPC;
	offset = ib_get_mad_data_offset(seg->mad->mad_hdr.mgmt_class);
	for (left = packet->length - first; left; left -= chunk) {
		seg = list_next_entry(seg, list);
		chunk = min(left, seg_size - offset);
		if (copy_to_user(buf, (void *)seg->mad + offset, chunk))
			return -EFAULT;
		buf += chunk;
	}
	return hdr_size + packet->length;
}

/* A send that timed out: its header, then its MAD header. */
static ssize_t copy_timed_out(struct umad_file *file, char __user *buf,
			      struct umad_packet *packet, size_t count)
{
	size_t hdr_size = umad_hdr_size(file);

	if (count < hdr_size + packet->length)
		return -EINVAL;
	if (copy_to_user(buf, &packet->umad.hdr, hdr_size) ||
	    copy_to_user(buf + hdr_size, packet->umad.data, packet->length))
		return -EFAULT;
	return hdr_size + packet->length;
}

static ssize_t umad_read(struct file *filp, char __user *buf, size_t count,
			 loff_t *pos)
{
	struct umad_file *file = filp->private_data;
	struct umad_packet *packet;
	ssize_t ret;

	if (count < umad_hdr_size(file))
		return -EINVAL;

	packet = recv_list_pop(file, filp->f_flags & O_NONBLOCK);
	if (IS_ERR(packet))
		return PTR_ERR(packet);

	if (packet->recv_wc)
		ret = copy_recv_mad(file, buf, packet, count);
	else
		ret = copy_timed_out(file, buf, packet, count);

	if (ret < 0)
		recv_list_push_front(file, packet);
	else
		umad_packet_free(packet);
	return ret;
}

/* ---------------------------------------------------------------- */
/* write                                                             */

/* The address handle for the destination the user's header names. */
static struct ib_ah *umad_create_ah(struct umad_file *file,
				    struct ib_mad_agent *agent,
				    const struct ib_user_mad_hdr *hdr)
{
	u32 port_num = file->port->port_num;
	struct rdma_ah_attr ah_attr = {};

	ah_attr.type = rdma_ah_find_type(agent->device, port_num);
	rdma_ah_set_port_num(&ah_attr, port_num);
	rdma_ah_set_dlid(&ah_attr, be16_to_cpu(hdr->lid));
	rdma_ah_set_sl(&ah_attr, hdr->sl);
	rdma_ah_set_path_bits(&ah_attr, hdr->path_bits);
	/* Without a GRH a RoCE address is refused (-EINVAL). */
	if (hdr->grh_present) {
		rdma_ah_set_grh(&ah_attr, NULL, be32_to_cpu(hdr->flow_label),
				hdr->gid_index, hdr->hop_limit,
				hdr->traffic_class);
		memcpy(ah_attr.grh.dgid.raw, hdr->gid, sizeof(hdr->gid));
	}
	return rdma_create_user_ah(agent->qp->pd, &ah_attr, NULL);
}

/*
 * An RMPP message the MAD layer segments: the common and RMPP headers are
 * in place, the class header and then the data are spread over the
 * segments.
 */
static int copy_rmpp_mad_in(struct ib_mad_send_buf *msg,
			    const char __user *buf)
{
	int seg, left;

	if (msg->hdr_len > IB_MGMT_RMPP_HDR &&
	    copy_from_user(msg->mad + IB_MGMT_RMPP_HDR,
			   buf + IB_MGMT_RMPP_HDR,
			   msg->hdr_len - IB_MGMT_RMPP_HDR))
		return -EFAULT;

	buf += msg->hdr_len;
	for (seg = 1, left = msg->data_len; left > 0; seg++) {
		int chunk = min(left, msg->seg_size);

		if (copy_from_user(ib_get_rmpp_segment(msg, seg), buf, chunk))
			return -EFAULT;
		buf += msg->seg_size;
		left -= msg->seg_size;
	}
	return 0;
}

/* Do two responses go to the same place, as far as the headers tell? */
static bool same_destination(const struct ib_user_mad_hdr *a,
			     const struct ib_user_mad_hdr *b)
{
	if (a->grh_present != b->grh_present)
		return false;
	if (a->grh_present)
		return !memcmp(a->gid, b->gid, sizeof(a->gid));
	return a->lid == b->lid;
}

/*
 * Is @packet's transaction already in flight from this file?  A request
 * collides with any request of the same class and TID; a response only
 * with a response of the same class and TID to the same destination
 * (stricter than the spec needs, as stock).
 */
static bool is_duplicate(struct umad_file *file, struct umad_packet *packet)
{
	const struct ib_mad_hdr *hdr = (void *)packet->umad.data;
	bool response = ib_response_mad(hdr);
	struct umad_packet *sent;

	lockdep_assert_held(&file->send_lock);

	list_for_each_entry(sent, &file->send_list, node) {
		const struct ib_mad_hdr *sent_hdr = (void *)sent->umad.data;

		if (sent_hdr->tid != hdr->tid ||
		    sent_hdr->mgmt_class != hdr->mgmt_class)
			continue;
		if (ib_response_mad(sent_hdr) != response)
			continue;
		if (!response ||
		    same_destination(&sent->umad.hdr, &packet->umad.hdr))
			return true;
	}
	return false;
}

/*
 * Build @packet's send buffer from the MAD at @buf (@count bytes, header
 * excluded) and post it.  Under file->lock, so the agent stays.
 */
static int umad_send(struct umad_file *file, struct ib_mad_agent *agent,
		     struct umad_packet *packet, const char __user *buf,
		     size_t count)
{
	struct umad_rmpp_hdr *first = (void *)packet->umad.data;
	struct ib_user_mad_hdr *hdr = &packet->umad.hdr;
	struct ib_mad_send_buf *msg;
	int hdr_len, copy_offset;
	bool kernel_rmpp, user_rmpp_active;
	int rmpp_active = 0;
	size_t data_len;
	struct ib_ah *ah;
	bool dup;
	int ret;

	lockdep_assert_held(&file->lock);

	ah = umad_create_ah(file, agent, hdr);
	if (IS_ERR(ah))
		return PTR_ERR(ah);

	hdr_len = ib_get_mad_data_offset(first->mad_hdr.mgmt_class);
	kernel_rmpp = ib_is_mad_class_rmpp(first->mad_hdr.mgmt_class) &&
		      ib_mad_kernel_rmpp_agent(agent);
	if (kernel_rmpp) {
		/* The MAD layer writes the RMPP header. */
		copy_offset = IB_MGMT_RMPP_HDR;
		rmpp_active = ib_get_rmpp_flags(&first->rmpp_hdr) &
			      IB_MGMT_RMPP_FLAG_ACTIVE;
	} else {
		copy_offset = IB_MGMT_MAD_HDR;
	}
	if (check_sub_overflow(count, (size_t)hdr_len, &data_len)) {
		ret = -EINVAL;
		goto err_ah;
	}

	msg = ib_create_send_mad(agent, be32_to_cpu(hdr->qpn), hdr->pkey_index,
				 rmpp_active, hdr_len, data_len, GFP_KERNEL,
				 first->mad_hdr.base_version);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto err_ah;
	}
	msg->ah = ah;
	msg->timeout_ms = hdr->timeout_ms;
	msg->retries = hdr->retries;
	msg->context[0] = packet;
	packet->msg = msg;

	memcpy(msg->mad, &first->mad_hdr, IB_MGMT_MAD_HDR);
	if (rmpp_active)
		ret = copy_rmpp_mad_in(msg, buf);
	else if (copy_from_user(msg->mad + copy_offset, buf + copy_offset,
				hdr_len + data_len - copy_offset))
		ret = -EFAULT;
	else
		ret = 0;
	if (ret)
		goto err_msg;

	/*
	 * A request carries the agent's hi_tid in the upper half of its TID:
	 * unique across agents, and how the response finds its way back.
	 */
	if (!ib_response_mad(msg->mad)) {
		struct ib_mad_hdr *mad_hdr = msg->mad;

		mad_hdr->tid = cpu_to_be64((u64)agent->hi_tid << 32 |
					   lower_32_bits(be64_to_cpu(mad_hdr->tid)));
		first->mad_hdr.tid = mad_hdr->tid;
	}

	/* The segments of a user-run RMPP transfer all share one TID. */
	user_rmpp_active = !ib_mad_kernel_rmpp_agent(agent) &&
			   ib_is_mad_class_rmpp(first->mad_hdr.mgmt_class) &&
			   (ib_get_rmpp_flags(&first->rmpp_hdr) &
			    IB_MGMT_RMPP_FLAG_ACTIVE);
	spin_lock(&file->send_lock);
	dup = !user_rmpp_active && is_duplicate(file, packet);
	if (!dup)
		list_add_tail(&packet->node, &file->send_list);
	spin_unlock(&file->send_lock);
	if (dup) {
		ret = -EINVAL;
		goto err_msg;
	}

	ret = ib_post_send_mad(msg, NULL);
	if (ret)
		goto err_dequeue;
	return 0;

err_dequeue:
	umad_send_dequeue(file, packet);
err_msg:
	packet->msg = NULL;
	ib_free_send_mad(msg);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	return ret;
}

static ssize_t umad_write(struct file *filp, const char __user *buf,
			  size_t count, loff_t *pos)
{
	struct umad_file *file = filp->private_data;
	size_t hdr_size = umad_hdr_size(file);
	struct umad_packet *packet;
	struct ib_mad_agent *agent;
	int ret;

	if (count < hdr_size + IB_MGMT_RMPP_HDR)
		return -EINVAL;

	/* Room behind the header for the MAD's first bytes. */
	packet = kzalloc(sizeof(*packet) + IB_MGMT_RMPP_HDR, GFP_KERNEL);
	if (!packet)
		return -ENOMEM;
	if (copy_from_user(&packet->umad.hdr, buf, hdr_size)) {
		ret = -EFAULT;
		goto err;
	}
	if (packet->umad.hdr.id >= UMAD_MAX_AGENTS) {
		ret = -EINVAL;
		goto err;
	}
	if (copy_from_user(packet->umad.data, buf + hdr_size,
			   IB_MGMT_RMPP_HDR)) {
		ret = -EFAULT;
		goto err;
	}

	mutex_lock(&file->lock);
	agent = file->dead ? NULL :
		file->agents[array_index_nospec(packet->umad.hdr.id,
						UMAD_MAX_AGENTS)];
	if (!agent)
		ret = -EIO;
	else
		ret = umad_send(file, agent, packet, buf + hdr_size,
				count - hdr_size);
	mutex_unlock(&file->lock);
	if (ret)
		goto err;
	/* umad_send_done() has it now. */
	return count;

err:
	kfree(packet);
	return ret;
}

/* ---------------------------------------------------------------- */
/* poll and ioctl                                                    */

static __poll_t umad_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct umad_file *file = filp->private_data;
	/* A write never waits for room. */
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(filp, &file->recv_wait, wait);

	mutex_lock(&file->lock);
	if (file->dead)
		mask = EPOLLERR;
	else if (!list_empty(&file->recv_list))
		mask |= EPOLLIN | EPOLLRDNORM;
	mutex_unlock(&file->lock);
	return mask;
}

/* Only before the first agent: the header format is fixed from then on. */
static long umad_enable_pkey(struct umad_file *file)
{
	long ret = 0;

	mutex_lock(&file->lock);
	if (file->hdr_fixed)
		ret = -EINVAL;
	else
		file->pkey_hdr = true;
	mutex_unlock(&file->lock);
	return ret;
}

static long umad_do_ioctl(struct umad_file *file, unsigned int cmd,
			  void __user *arg, bool compat)
{
	switch (cmd) {
	case IB_USER_MAD_REGISTER_AGENT:
		return umad_ioctl_register(file, arg, compat ?
					   UMAD_REG_V1_COMPAT : UMAD_REG_V1);
	case IB_USER_MAD_UNREGISTER_AGENT:
		return umad_ioctl_unregister(file, arg);
	case IB_USER_MAD_ENABLE_PKEY:
		return umad_enable_pkey(file);
	case IB_USER_MAD_REGISTER_AGENT2:
		return umad_ioctl_register(file, arg, UMAD_REG_V2);
	default:
		return -ENOIOCTLCMD;
	}
}

static long umad_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	return umad_do_ioctl(filp->private_data, cmd, (void __user *)arg,
			     false);
}

#ifdef CONFIG_COMPAT
static long umad_compat_ioctl(struct file *filp, unsigned int cmd,
			      unsigned long arg)
{
	return umad_do_ioctl(filp->private_data, cmd, compat_ptr(arg), true);
}
#endif

const struct file_operations umad_fops = {
	.owner = THIS_MODULE,
	.open = umad_open,
	.release = umad_release,
	.read = umad_read,
	.write = umad_write,
	.poll = umad_poll,
	.unlocked_ioctl = umad_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl = umad_compat_ioctl,
#endif
	.llseek = no_llseek,
};
