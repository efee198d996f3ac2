// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_uverbs: async event fds of the ioctl path (ASYNC_EVENT_ALLOC).
 *
 * The ioctl GET_CONTEXT makes no async event fd: userspace asks for them
 * here, each a new fd uobject reading its own event file.  Every one
 * reports port events; the first becomes the file's default, where the
 * objects created without an EVENT_FD report (and where the device's
 * removal is announced).
 */

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/uverbs_types.h>

#include "uverbs.h"

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

static struct ib_uverbs_async_event_uobj *to_async_uobj(struct ib_uobject *uobj)
{
	return container_of(uobj, struct ib_uverbs_async_event_uobj, uobj);
}

/*
 * Closing its fd or the file's cleanup, under ucontext_lock: no port
 * event any more.  The queue stays readable until the fd is closed, the
 * device's removal is still announced on it.
 */
static void uverbs_free_async_event(struct ib_uobject *uobj,
				    enum rdma_remove_reason why)
{
	ib_uverbs_async_file_stop(to_async_uobj(uobj)->ev_file);
}

const struct uverbs_api_object uverbs_async_event_object = {
	.type_attrs = &UVERBS_TYPE_ALLOC_FD(sizeof(struct ib_uverbs_async_event_uobj),
					    uverbs_free_async_event,
					    &uverbs_async_event_fops,
					    "[infinibandevent]",
					    O_RDONLY),
	.type_class = &uverbs_fd_class,
	.id = UVERBS_OBJECT_ASYNC_EVENT,
};

static int UVERBS_HANDLER(UVERBS_METHOD_ASYNC_EVENT_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs,
					UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uverbs_async_event_file *ev_file;

	ev_file = ib_uverbs_async_file_alloc(uverbs_attrs_ib_dev(attrs));
	if (!ev_file)
		return -ENOMEM;
	/* The fd's reference, dropped when it is released. */
	to_async_uobj(uobj)->ev_file = ev_file;

	mutex_lock(&ufile->ucontext_lock);
	ib_uverbs_set_default_async_file(ufile, ev_file);
	ib_uverbs_async_file_start(ev_file);
	mutex_unlock(&ufile->ucontext_lock);
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_ASYNC_EVENT_ALLOC,
			    UVERBS_ATTR_FD(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE,
					   UVERBS_OBJECT_ASYNC_EVENT,
					   UVERBS_ACCESS_NEW,
					   UA_MANDATORY));

/* Its uobject type is uverbs_async_event_object (uverbs_uapi.c). */
DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_ASYNC_EVENT,
			      &UVERBS_METHOD(UVERBS_METHOD_ASYNC_EVENT_ALLOC));

const struct uapi_definition uverbs_def_obj_async_fd[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_ASYNC_EVENT),
	{},
};
