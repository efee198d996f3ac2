/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_umad's private structures, shared by its files: the per-port char
 * devices (umadN for MADs, issmN for the SM capability bit), the files
 * opened on umadN with their MAD agents, and the MADs queued on them.
 *
 * Lock order: port->lock, then file->lock, then file->send_lock.  The
 * MAD layer calls our handlers in process context and they take
 * file->lock, so it is never held across ib_unregister_mad_agent(),
 * which waits for the handlers to return.
 */
#ifndef _USER_MAD_H
#define _USER_MAD_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_mad.h>

/* Agents one umadN file may register, the agent ids 0..31 (as stock). */
#define UMAD_MAX_AGENTS		32

/* Packets a file queues before it drops received MADs (stock's bound). */
#define UMAD_MAX_RECV_QUEUED	200000

/**
 * struct umad_port - the char devices of one port with MAD support
 * @udev: the umad_device whose ports[] this is
 * @added: the char devices exist, for removal to delete
 * @port_num: the port on the ib_device
 * @devnum: N in umadN and issmN, from umad_ida
 * @dev: umadN; its release and sm_dev's each drop one udev reference
 * @cdev: umadN's char device
 * @sm_dev: issmN
 * @sm_cdev: issmN's char device
 * @sm_sem: held by the one file open on issmN
 * @lock: guards @ib_dev and @files; held across agent registration and
 *	unregistration so that removal sees every agent of every file
 * @ib_dev: the device, NULL once the port is removed
 * @files: the umad_files open on umadN
 */
struct umad_port {
	struct umad_device *udev;
	bool added;
	u32 port_num;
	int devnum;

	struct device dev;
	struct cdev cdev;
	struct device sm_dev;
	struct cdev sm_cdev;
	struct semaphore sm_sem;

	struct mutex lock; /* ib_dev, files; before file->lock */
	struct ib_device *ib_dev;
	struct list_head files;
};

/**
 * struct umad_device - ib_umad's client data for one ib_device
 * @ref: one for the client (dropped on remove) and one per port device
 * @start_port: rdma_start_port() of the device, the index of ports[0]
 * @num_ports: entries in @ports
 * @ports: one per port of the device; ports without MAD support stay
 *	unused
 */
struct umad_device {
	struct kref ref;
	u32 start_port;
	u32 num_ports;
	struct umad_port ports[];
};

/**
 * struct umad_file - a file open on umadN
 * @port: its port; the file holds a reference to port->dev
 * @node: in port->files, under port->lock
 * @lock: guards the fields below it up to @recv_wait
 * @agents: the registered MAD agents, by the id userspace knows them by
 * @dead: the agents are gone (device removed, or the file closing)
 * @pkey_hdr: MADs carry struct ib_user_mad_hdr (ENABLE_PKEY or
 *	REGISTER_AGENT2); else struct ib_user_mad_hdr_old, its prefix
 * @hdr_fixed: an agent was registered: @pkey_hdr no longer changes
 * @recv_list: umad_packets for read(): received MADs and timed out sends
 * @recv_count: packets on @recv_list; past UMAD_MAX_RECV_QUEUED, received
 *	MADs are dropped
 * @recv_wait: read() and poll() wait here for @recv_list or @dead
 * @send_lock: guards @send_list; never held across a call out
 * @send_list: umad_packets posted and not yet completed, searched for
 *	duplicate transaction ids
 */
struct umad_file {
	struct umad_port *port;
	struct list_head node;

	struct mutex lock; /* agents .. recv_wait; taken by the handlers */
	struct ib_mad_agent *agents[UMAD_MAX_AGENTS];
	bool dead;
	bool pkey_hdr;
	bool hdr_fixed;
	struct list_head recv_list;
	unsigned int recv_count;
	wait_queue_head_t recv_wait;

	spinlock_t send_lock; /* send_list */
	struct list_head send_list;
};

/**
 * struct umad_packet - one MAD on its way to or from userspace
 * @node: in file->recv_list or file->send_list
 * @msg: a send: the MAD layer's buffer, until the send completes
 * @recv_wc: a received MAD, owned by us until read() copies it out
 * @length: bytes of MAD behind the header read() returns
 * @umad: the header userspace reads or wrote; a send keeps the first
 *	IB_MGMT_RMPP_HDR bytes of its MAD behind it (allocated with it)
 */
struct umad_packet {
	struct list_head node;
	struct ib_mad_send_buf *msg;
	struct ib_mad_recv_wc *recv_wc;
	int length;
	struct ib_user_mad umad;
};

static inline size_t umad_hdr_size(const struct umad_file *file)
{
	return file->pkey_hdr ? sizeof(struct ib_user_mad_hdr) :
				sizeof(struct ib_user_mad_hdr_old);
}

/* The registration ioctls, and the caller's word size for the first. */
enum umad_reg_abi {
	UMAD_REG_V1,
	UMAD_REG_V1_COMPAT,
	UMAD_REG_V2,
};

/* user_mad_file.c */
extern const struct file_operations umad_fops;
void umad_packet_free(struct umad_packet *packet);
void umad_file_kill(struct umad_file *file);

/* user_mad_agent.c */
int umad_queue_packet(struct umad_file *file, struct ib_mad_agent *agent,
		      struct umad_packet *packet, bool received);
void umad_send_dequeue(struct umad_file *file, struct umad_packet *packet);
void umad_agents_release(struct umad_file *file);
long umad_ioctl_register(struct umad_file *file, void __user *arg,
			 enum umad_reg_abi abi);
long umad_ioctl_unregister(struct umad_file *file, u32 __user *arg);

/* user_mad_sm.c */
extern const struct file_operations umad_sm_fops;

#endif /* _USER_MAD_H */
