"""Training, evaluation and tournaments, installed as ``zanzibar_env.train``: commands over a library.

The commands a user runs are this package's top-level modules (``python -m train.ppo`` from a checkout,
``python -m zanzibar_env.train.ppo`` from an install, or ``zanzibar <command>``): ``ppo`` (SB3 PPO),
``jax_ppo`` (PPO on the JAX env), ``evaluate``, ``exact_eval``, ``game_curve``, ``seeds``, ``sweep``,
``rl_zoo``, and the packages ``tournament`` and ``rllib``. The library they share lives in subpackages
by concern, each ``__init__`` its interface:

- :mod:`zanzibar_env.train.config`: typed configs loaded from YAML and checked before a run starts;
- :mod:`zanzibar_env.train.sb3`: the parts of the SB3 training loop (callbacks, opponents, faults, features);
- :mod:`zanzibar_env.train.results`: run directories, intervals, figures, the record of a run's machine;
- :mod:`zanzibar_env.train.jax_training`: the JAX PPO's envs;
- :mod:`zanzibar_env.train.tournament`: tournaments in duplicate format (also a command);
- :mod:`zanzibar_env.train.rllib`: self-play PPO with RLlib (also a command).

Importing any of them changes nothing outside the package: no signal handler, no environment variable.
Commands pin torch's CPU kernels in their ``main`` (:func:`zanzibar_env.train.results.pin_cpu_kernels`;
research code that wants the same floats as the commands calls it before torch computes anything).
"""
