# SPDX-License-Identifier: BSD-3-Clause
"""softdoca's Python test bed, shared by the test scripts under tests/ and by bench/.

  tap          TAP output for Python tests: Failure, Skip, check(), run()
  netns        two "hosts" on one machine: namespaces A and B joined by veth pairs (TwoHosts);
               `python3 -m softdoca_testbed.netns ... -- CMD` builds them around a C test
  pairs        drive pairs of DOCA RDMA samples as a person does (Session, Side, ...);
               Proc and Run for any program a test drives in the background
  verbs_pairs  the same for doca_verbs_server_client
  multi_rail   the two-rail bed of doca_verbs_multi_rail_server_client (tbf-shaped rails)

Found through PYTHONPATH: meson's test setup (tests/meson.build) and scripts/bench.sh set
it to this directory's parent; by hand, `PYTHONPATH=python python3 bench/compare.py ...`.
Nothing here imports from tests/ or bench/.
"""
