// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device's own sysfs files under /sys/class/infiniband/mlx5_N, as
 * the distribution's mlx5_ib names them (rdma-core and the mlx5 tools
 * read them): the board, the chip and its revision, and the pages the
 * firmware holds of the host's memory.  Also the firmware version the
 * core prints (fw_ver, rdma dev).
 */
#include "mlx5_ib.h"

static struct mlx5_core_dev *mlx5_ib_sysfs_mdev(struct device *device)
{
	return rdma_device_to_drv_device(device, struct mlx5_ib_dev, ib_dev)->mdev;
}

static ssize_t board_id_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct mlx5_core_dev *mdev = mlx5_ib_sysfs_mdev(device);

	return sysfs_emit(buf, "%.*s\n", MLX5_BOARD_ID_LEN, mdev->board_id);
}
static DEVICE_ATTR_RO(board_id);

static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "MT%d\n", mlx5_ib_sysfs_mdev(device)->pdev->device);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t hw_rev_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%x\n", mlx5_ib_sysfs_mdev(device)->pdev->revision);
}
static DEVICE_ATTR_RO(hw_rev);

static ssize_t fw_pages_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", mlx5_ib_sysfs_mdev(device)->priv.fw_pages);
}
static DEVICE_ATTR_RO(fw_pages);

static ssize_t reg_pages_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	struct mlx5_core_dev *mdev = mlx5_ib_sysfs_mdev(device);

	return sysfs_emit(buf, "%d\n", atomic_read(&mdev->priv.reg_pages));
}
static DEVICE_ATTR_RO(reg_pages);

static struct attribute *mlx5_ib_dev_attrs[] = {
	&dev_attr_board_id.attr,
	&dev_attr_fw_pages.attr,
	&dev_attr_hca_type.attr,
	&dev_attr_hw_rev.attr,
	&dev_attr_reg_pages.attr,
	NULL,
};

const struct attribute_group mlx5_ib_dev_attr_group = {
	.attrs = mlx5_ib_dev_attrs,
};

void mlx5_ib_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	struct mlx5_core_dev *mdev = to_mdev(ibdev)->mdev;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%d.%d.%04d", fw_rev_maj(mdev),
		 fw_rev_min(mdev), fw_rev_sub(mdev));
}
