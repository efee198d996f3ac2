# SPDX-License-Identifier: GPL-2.0-only
#
# The build of a test-only module that uses only public kernel API, so
# that it builds against either stack.  Its Makefile names the module
# (MODULE; SOURCES if more than $(MODULE).c goes into a stock/ copy),
# picks its targets from these and includes this file:
#	make -C tools/testing/selftests/rdma/modules/$(MODULE)
#		$(MODULE).ko against this tree's modules (build the tree
#		first), always from scratch: the symbol CRCs follow the
#		tree's last build
#	make -C tools/testing/selftests/rdma/modules/$(MODULE) stock
#		stock/$(MODULE).ko against the in-tree modules of KDIR: the
#		same sources in a directory of their own, with KDIR's
#		symbols only (scripts/vm --stock --ko .../stock/$(MODULE).ko)
# scripts/check, scripts/debug-kernel and vmtest take a module whose
# Makefile has a "stock:" line for one of these.
# Empty counts as unset: the top Makefile exports the KDIR it found when
# it was read, before make check's setup had installed any headers.
ifeq ($(KDIR),)
KDIR := $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64)))
endif
REPO := $(abspath $(CURDIR)/../../../../../..)
STOCK := $(CURDIR)/stock
SOURCES ?= $(MODULE).c
SHARED_HEADERS := $(wildcard $(CURDIR)/../include/*.h)

module: clean-module
	$(MAKE) -C $(KDIR) M=$(CURDIR) KBUILD_EXTRA_SYMBOLS=$(REPO)/Module.symvers modules

stock-module:
	rm -rf $(STOCK)
	mkdir -p $(STOCK)
	cp $(CURDIR)/Kbuild $(addprefix $(CURDIR)/,$(SOURCES)) \
	   $(SHARED_HEADERS) $(STOCK)/
	$(MAKE) -C $(KDIR) M=$(STOCK) modules

clean-module:
	@test ! -f "$(KDIR)/Makefile" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(STOCK)

.PHONY: all stock clean module stock-module clean-module
