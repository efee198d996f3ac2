# SPDX-License-Identifier: GPL-2.0-only
#
# Bringing up the modelled ConnectX-4 Lx (scripts/vm --hw mlx5,
# Documentation/infiniband/mlx5-model.rst) with Debian's mlx5_core and
# mlx5_ib, for the selftests and scripts that run on it.  Sourced after
# lib.sh (pci_function, eventually).

MLX5_IBDEV=mlx5_0

# The model's PCI function (15b3:1015), empty without one.
mlx5_bdf() {
	pci_function 0x15b3 0x1015
}

# The sysfs form of the IPv4-mapped GID of ADDR (RoCE v2 GIDs of an
# interface's IPv4 addresses): 0000:...:ffff:c000:0201 for 192.0.2.1.
ipv4_gid() {
	local IFS=.

	# shellcheck disable=SC2086 # split ADDR at its dots
	set -- $1
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$@"
}

# The index of mlx5_0's RoCE v2 GID of ADDR on port 1.
mlx5_gid_index() {
	local g gid i ib=/sys/class/infiniband/$MLX5_IBDEV

	gid=$(ipv4_gid "$1")
	for g in "$ib"/ports/1/gids/*; do
		[ "$(cat "$g" 2>/dev/null)" = "$gid" ] || continue
		i=${g##*/}
		if [ "$(cat "$ib/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

mlx5_has_netdev() {
	ls "/sys/bus/pci/devices/$MLX5_BDF/net" 2>/dev/null | grep -q .
}

# mlx5_netdev_up ADDR/PREFIX: mlx5_core on the model, its netdev up with
# the address (its only IPv4 one) and carrier.  Sets MLX5_BDF and MLX5_IF.  Probing takes
# tens of seconds under TCG (minutes on the debug kernel).
mlx5_netdev_up() {
	local dev

	MLX5_BDF=$(mlx5_bdf)
	MLX5_IF=
	[ -n "$MLX5_BDF" ] || { echo "no 15b3:1015 PCI function"; return 1; }
	dev=/sys/bus/pci/devices/$MLX5_BDF
	modprobe mlx5_core || return 1
	eventually 180 mlx5_has_netdev || {
		echo "mlx5_core made no netdev"
		return 1
	}
	MLX5_IF=$(ls "$dev/net" | head -1)
	# Only this address (and so only its GIDs), whatever ran before.
	ip -4 addr flush dev "$MLX5_IF"
	ip addr add "$1" dev "$MLX5_IF" && ip link set "$MLX5_IF" up || return 1
	eventually 60 grep -qx 1 "/sys/class/net/$MLX5_IF/carrier" ||
		{ echo "$MLX5_IF: no carrier"; return 1; }
}

# mlx5_roce_up ADDR/PREFIX: mlx5_netdev_up, then mlx5_ib and the user
# verbs and rdma_cm modules; mlx5_0 registered with a RoCE v2 GID of the
# address.  Sets MLX5_GIDX to that GID's index.
mlx5_roce_up() {
	MLX5_GIDX=
	mlx5_netdev_up "$1" || return 1
	modprobe -a mlx5_ib ib_uverbs rdma_cm rdma_ucm || return 1
	eventually 60 test -d "/sys/class/infiniband/$MLX5_IBDEV" ||
		{ echo "mlx5_ib registered no $MLX5_IBDEV"; return 1; }
	eventually 60 mlx5_gid_index "${1%/*}" >/dev/null ||
		{ echo "$MLX5_IBDEV: no RoCE v2 GID of ${1%/*}"; return 1; }
	MLX5_GIDX=$(mlx5_gid_index "${1%/*}")
}
