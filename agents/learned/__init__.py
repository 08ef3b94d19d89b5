"""The learned policies: the policy kinds and their networks, the saved-policy file format,
the agents that play a saved policy (``checkpoint:PATH``, ``pretrained:NAME``), their NumPy
inference, and the sparse split distributions that training samples from.

Importing this package imports nothing. The policy kinds (:mod:`.policy_kinds`), the policy
files that specs name (:mod:`.policy_files`) and the numba kernels need no torch; the other
modules need the ``[train]`` extra (torch, Stable-Baselines3, sb3-contrib)."""
