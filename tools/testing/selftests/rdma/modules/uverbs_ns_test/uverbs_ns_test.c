// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test-only module, never part of the default build: a device "uvns%d"
 * with no data path whose driver_def has a namespace of its own, so that
 * the selftests (uverbs_ns.sh) can drive the ioctl API's driver objects
 * on both stacks:
 *
 *	THING (NS+0)	a handle-table object: CREATE (with an optional PD
 *			handle), DESTROY, PEEK (a handle of any type,
 *			UVERBS_IDR_ANY_OBJECT: answers its object id),
 *			USE_OFF (a mandatory OFF handle) and USE_OFF_OPT (an
 *			optional one)
 *	OFF (NS+1)	an object IS_SUPPORTED refuses
 *	CHAN (NS+2)	an fd object: CREATE
 *	PD's TAG (NS+0)	a driver method on a core object
 *	QUERY_CONTEXT	a mandatory driver attribute (NS+0) on a core method
 *
 * /sys/module/uverbs_ns_test/parameters/
 *	destroyed	THING and CHAN destroy callbacks run, by reason:
 *			"destroy close driver_remove abort"
 *	remove		write 1: unregister the device (once)
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "stub_ibdev.h"

#define UVERBS_MODULE_NAME uvns
#include <rdma/uverbs_named_ioctl.h>

#define NS(n) ((1U << UVERBS_ID_NS_SHIFT) + (n))

enum { UVNS_OBJ_THING = NS(0), UVNS_OBJ_OFF = NS(1), UVNS_OBJ_CHAN = NS(2) };

enum {
	UVNS_THING_CREATE = NS(0),
	UVNS_THING_DESTROY = NS(1),
	UVNS_THING_PEEK = NS(2),
	UVNS_THING_USE_OFF = NS(3),
	UVNS_THING_USE_OFF_OPT = NS(4),
};

enum { UVNS_OFF_CREATE = NS(0) };

enum { UVNS_CHAN_CREATE = NS(0) };

enum { UVNS_PD_TAG = NS(0) };

/* Attributes: the handle first, then values, then answers. */
enum {
	UVNS_A_HANDLE = NS(0),
	UVNS_A_VALUE = NS(1),
	UVNS_A_PD = NS(2),
	UVNS_A_OUT = NS(3),
};

#define UVNS_TAG 0x5a5a
#define UVNS_UCTX_VALUE 0x77

static atomic_t uvns_destroyed[RDMA_REMOVE_ABORT + 1];
static struct ib_device *uvns_dev;
static DEFINE_MUTEX(uvns_remove_lock);
static bool uvns_removed;

static void uvns_count(enum rdma_remove_reason why)
{
	if (why <= RDMA_REMOVE_ABORT)
		atomic_inc(&uvns_destroyed[why]);
}

static int uvns_thing_cleanup(struct ib_uobject *uobj,
			      enum rdma_remove_reason why,
			      struct uverbs_attr_bundle *attrs)
{
	uvns_count(why);
	return 0;
}

static int UVERBS_HANDLER(UVNS_THING_CREATE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, UVNS_A_HANDLE);
	u32 value;
	int ret;

	ret = uverbs_copy_from(&value, attrs, UVNS_A_VALUE);
	if (ret)
		return ret;
	/* Any non-NULL object: the type's cleanup frees nothing. */
	uobj->object = uobj;
	uverbs_finalize_uobj_create(attrs, UVNS_A_HANDLE);
	return 0;
}

static int UVERBS_HANDLER(UVNS_THING_PEEK)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, UVNS_A_HANDLE);
	u32 id = uobj_get_object_id(uobj);

	return uverbs_copy_to(attrs, UVNS_A_OUT, &id, sizeof(id));
}

static int UVERBS_HANDLER(UVNS_THING_USE_OFF_OPT)(struct uverbs_attr_bundle *attrs)
{
	return 0;
}

/* Never runs: the method does not exist (its mandatory OFF is off). */
static int UVERBS_HANDLER(UVNS_THING_USE_OFF)(struct uverbs_attr_bundle *attrs)
{
	return -EINVAL;
}

DECLARE_UVERBS_NAMED_METHOD(UVNS_THING_CREATE,
			    UVERBS_ATTR_IDR(UVNS_A_HANDLE, UVNS_OBJ_THING,
					    UVERBS_ACCESS_NEW, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(UVNS_A_VALUE, UVERBS_ATTR_TYPE(u32),
					       UA_MANDATORY),
			    UVERBS_ATTR_IDR(UVNS_A_PD, UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ, UA_OPTIONAL));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(UVNS_THING_DESTROY,
				    UVERBS_ATTR_IDR(UVNS_A_HANDLE, UVNS_OBJ_THING,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(UVNS_THING_PEEK,
			    UVERBS_ATTR_IDR(UVNS_A_HANDLE, UVERBS_IDR_ANY_OBJECT,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVNS_A_OUT, UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(UVNS_THING_USE_OFF,
			    UVERBS_ATTR_IDR(UVNS_A_HANDLE, UVNS_OBJ_OFF,
					    UVERBS_ACCESS_READ, UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(UVNS_THING_USE_OFF_OPT,
			    UVERBS_ATTR_IDR(UVNS_A_HANDLE, UVNS_OBJ_OFF,
					    UVERBS_ACCESS_READ, UA_OPTIONAL));

DECLARE_UVERBS_NAMED_OBJECT(UVNS_OBJ_THING,
			    UVERBS_TYPE_ALLOC_IDR(uvns_thing_cleanup),
			    &UVERBS_METHOD(UVNS_THING_CREATE),
			    &UVERBS_METHOD(UVNS_THING_DESTROY),
			    &UVERBS_METHOD(UVNS_THING_PEEK),
			    &UVERBS_METHOD(UVNS_THING_USE_OFF),
			    &UVERBS_METHOD(UVNS_THING_USE_OFF_OPT));

static int UVERBS_HANDLER(UVNS_OFF_CREATE)(struct uverbs_attr_bundle *attrs)
{
	return -EINVAL;
}

DECLARE_UVERBS_NAMED_METHOD(UVNS_OFF_CREATE,
			    UVERBS_ATTR_IDR(UVNS_A_HANDLE, UVNS_OBJ_OFF,
					    UVERBS_ACCESS_NEW, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(UVNS_OBJ_OFF,
			    UVERBS_TYPE_ALLOC_IDR(uvns_thing_cleanup),
			    &UVERBS_METHOD(UVNS_OFF_CREATE));

static bool uvns_off_supported(struct ib_device *dev)
{
	return false;
}

static void uvns_chan_destroy(struct ib_uobject *uobj,
			      enum rdma_remove_reason why)
{
	uvns_count(why);
}

static const struct file_operations uvns_chan_fops = {
	.owner = THIS_MODULE,
	.release = uverbs_uobject_fd_release,
};

static int UVERBS_HANDLER(UVNS_CHAN_CREATE)(struct uverbs_attr_bundle *attrs)
{
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(UVNS_CHAN_CREATE,
			    UVERBS_ATTR_FD(UVNS_A_HANDLE, UVNS_OBJ_CHAN,
					   UVERBS_ACCESS_NEW, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(UVNS_OBJ_CHAN,
			    UVERBS_TYPE_ALLOC_FD(sizeof(struct ib_uobject),
						 uvns_chan_destroy,
						 &uvns_chan_fops, "[uvns_chan]",
						 O_RDONLY),
			    &UVERBS_METHOD(UVNS_CHAN_CREATE));

static int UVERBS_HANDLER(UVNS_PD_TAG)(struct uverbs_attr_bundle *attrs)
{
	u32 tag = UVNS_TAG;

	return uverbs_copy_to(attrs, UVNS_A_OUT, &tag, sizeof(tag));
}

DECLARE_UVERBS_NAMED_METHOD(UVNS_PD_TAG,
			    UVERBS_ATTR_IDR(UVNS_A_HANDLE, UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(UVNS_A_OUT, UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY));

ADD_UVERBS_METHODS(uvns_pd, UVERBS_OBJECT_PD, &UVERBS_METHOD(UVNS_PD_TAG));

ADD_UVERBS_ATTRIBUTES_SIMPLE(uvns_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(UVNS_A_OUT, UVERBS_ATTR_TYPE(u32),
						 UA_MANDATORY));

static const struct uapi_definition uvns_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVNS_OBJ_THING),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVNS_OBJ_OFF,
				      UAPI_DEF_IS_OBJ_SUPPORTED(uvns_off_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVNS_OBJ_CHAN),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &uvns_pd),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &uvns_query_context),
	{},
};

/* QUERY_CONTEXT's driver part: the driver's attribute. */
static int uvns_query_ucontext(struct ib_ucontext *uctx,
			       struct uverbs_attr_bundle *attrs)
{
	u32 value = UVNS_UCTX_VALUE;

	return uverbs_copy_to(attrs, UVNS_A_OUT, &value, sizeof(value));
}

/* The rest of a device, enough to register and to hold PDs: stub_ibdev.h. */

struct uvns_device {
	struct ib_device ibdev;
};

/* Nothing mapped: nothing to revoke. */
static void uvns_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static const struct ib_device_ops uvns_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.disassociate_ucontext = uvns_disassociate_ucontext,
	.query_ucontext = uvns_query_ucontext,
};

static int destroyed_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d %d %d %d\n",
			  atomic_read(&uvns_destroyed[RDMA_REMOVE_DESTROY]),
			  atomic_read(&uvns_destroyed[RDMA_REMOVE_CLOSE]),
			  atomic_read(&uvns_destroyed[RDMA_REMOVE_DRIVER_REMOVE]),
			  atomic_read(&uvns_destroyed[RDMA_REMOVE_ABORT]));
}

static const struct kernel_param_ops destroyed_ops = {
	.get = destroyed_get,
};
module_param_cb(destroyed, &destroyed_ops, NULL, 0444);

static void uvns_remove(void)
{
	mutex_lock(&uvns_remove_lock);
	if (!uvns_removed) {
		ib_unregister_device(uvns_dev);
		uvns_removed = true;
	}
	mutex_unlock(&uvns_remove_lock);
}

static int remove_set(const char *val, const struct kernel_param *kp)
{
	uvns_remove();
	return 0;
}

static const struct kernel_param_ops remove_ops = {
	.set = remove_set,
};
module_param_cb(remove, &remove_ops, NULL, 0200);

static int __init uvns_init(void)
{
	struct uvns_device *dev;
	int ret;

	dev = ib_alloc_device(uvns_device, ibdev);
	if (!dev)
		return -ENOMEM;
	uvns_dev = &dev->ibdev;
	uvns_dev->node_type = RDMA_NODE_IB_CA;
	uvns_dev->phys_port_cnt = 1;
	uvns_dev->num_comp_vectors = 1;
	uvns_dev->driver_def = uvns_defs;
	ib_set_device_ops(uvns_dev, &uvns_ops);
	ib_set_device_ops(uvns_dev, &stub_ibdev_ops);
	ret = ib_register_device(uvns_dev, "uvns%d", NULL);
	if (ret)
		ib_dealloc_device(uvns_dev);
	return ret;
}

static void __exit uvns_exit(void)
{
	uvns_remove();
	ib_dealloc_device(uvns_dev);
}

module_init(uvns_init);
module_exit(uvns_exit);

MODULE_DESCRIPTION("oot-rdma selftest: a device with a driver namespace in its ioctl API");
MODULE_LICENSE("GPL");
MODULE_VERSION(OOT_RDMA_VERSION);
