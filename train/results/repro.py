"""Reproducible training runs: pin torch's CPU kernels before torch loads, and record what a run ran on.

The same seed gives the same run only if every floating-point operation is done the same way. On one
machine that holds once the RNGs are seeded and the thread counts fixed (``zanzibar_env.train.ppo`` does both); across
machines it also needs the same kernels, and torch picks them per CPU when it loads:

* ATen's vectorised CPU kernels (tanh, softmax, sums, Adam's updates) are compiled for several
  instruction sets and chosen at start-up (``torch.backends.cpu.get_cpu_capability()``: ``AVX2``,
  ``AVX512``, ...). ``ATEN_CPU_CAPABILITY`` overrides the choice.
* Matrix products go to MKL, which also dispatches per CPU; ``MKL_CBWR=COMPATIBLE`` makes it use one
  code path on every x86-64 CPU (MKL's "conditional numerical reproducibility").
* oneDNN (``ONEDNN_MAX_CPU_ISA``) is capped the same way for the layers that reach it.

:func:`pin_cpu_kernels` sets these variables (only those the user has not set); every command that runs
torch calls it first thing in its ``main`` (importing a module sets nothing). Torch reads them when it
first computes on the CPU, not when it is imported, so research code that wants the commands' floats
calls it before its first tensor operation. By default it pins ATen and oneDNN (``avx2`` /
``AVX2`` on x86-64 CPUs with AVX2 and FMA, ``default`` / ``SSE41`` on older x86-64 CPUs), which costs
nothing on an AVX2 machine. MKL is left to choose: its matrix products agree between machines only
where it picks the same code path, which MKL decides per CPU model (only this one machine was tested).
``ZANZIBAR_PIN_CPU=strict`` also sets ``MKL_CBWR=COMPATIBLE`` (one MKL code path on every x86-64 CPU,
Intel or AMD; markedly slower matrix products); ``ZANZIBAR_PIN_CPU=0`` pins nothing. On other
architectures (ARM) nothing is pinned and runs are reproducible only on the same kind of machine.

:func:`environment` is what a run depended on (versions, the kernels torch actually chose, thread
counts, the pinning variables); ``zanzibar_env.train.ppo`` saves it as ``environment.json`` in each run directory.
"""

from __future__ import annotations

import os
import platform
from typing import Any

#: Variables that choose torch's CPU kernels (and, for the record, the thread counts).
KERNEL_VARS = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA")
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def _has_avx2_fma() -> bool:
    """Whether this x86-64 CPU has AVX2 and FMA (from numpy's CPU feature table; no torch needed)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as feats  # type: ignore[no-redef]  # the same name, numpy < 2
    return bool(feats.get("AVX2") and feats.get("FMA3"))


def kernel_pins() -> dict[str, str]:
    """The kernel variables :func:`pin_cpu_kernels` would set on this machine (empty: nothing to pin)."""
    mode = os.environ.get("ZANZIBAR_PIN_CPU", "1")
    if mode == "0" or platform.machine().lower() not in ("x86_64", "amd64"):
        return {}
    if _has_avx2_fma():
        pins = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
    else:
        pins = {"ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41"}
    return {**pins, "MKL_CBWR": "COMPATIBLE"} if mode == "strict" else pins


def pin_cpu_kernels() -> dict[str, str]:
    """Set the kernel variables of :func:`kernel_pins` that are not set yet; returns the pins wanted.

    Torch chooses its kernels at its first CPU computation: pins set after that come too late, and
    :func:`environment` (``torch_cpu_capability``) shows what torch chose.
    """
    pins = kernel_pins()
    for key, value in pins.items():
        os.environ.setdefault(key, value)
    return pins


def kernels_pinned(torch_capability: str) -> bool:
    """Whether torch runs the ATen kernels that :func:`kernel_pins` asks for (``True`` when it asks none)."""
    wanted = kernel_pins().get("ATEN_CPU_CAPABILITY")
    return wanted is None or torch_capability.lower() == wanted.lower()


def cpu_model() -> str:
    """The CPU model name (/proc/cpuinfo's ``model name``, else ``platform.processor()``)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def environment() -> dict[str, Any]:
    """What a run depends on besides its config: versions, CPU, torch's kernels and threads, variables."""
    import gymnasium
    import numpy as np
    import sb3_contrib
    import stable_baselines3
    import torch

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "torch": torch.__version__,
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "torch_threads": torch.get_num_threads(),
        "torch_interop_threads": torch.get_num_interop_threads(),
        "numpy": np.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "sb3_contrib": sb3_contrib.__version__,
        "gymnasium": gymnasium.__version__,
        "env": {k: os.environ.get(k) for k in (*KERNEL_VARS, *THREAD_VARS, "ZANZIBAR_PIN_CPU")},
        "pins_wanted": kernel_pins(),
    }
