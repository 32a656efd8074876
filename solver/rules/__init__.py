"""Plan rules, one module per rule family, each the one home of the arithmetic the program,
the expansion and repair, and the reports share (docs/architecture.md, "Where a rule lives").

- ``headroom``: R15, the share of installed VRAM, RAM and drive TB a plan may fill;
- ``power``: P1 a server's rated power, P3 what one rack holds and the racks a pool takes;
- ``cores``: O3, the CPU cores one replica needs;
- ``storage``: O4, the TB the workloads keep on disk;
- ``registry``: every plan rule by id, with its program family, check, brute-force rule
  and doc anchor.

The independent checker (``solver/check``) and the brute force (``bench/bruteforce.py``)
keep their own arithmetic on purpose: an oracle must not share the code it checks. The
headroom line is the package's most read rule, so it is importable from here.
"""

from .headroom import headroom_line, usable

__all__ = ["headroom_line", "usable"]
