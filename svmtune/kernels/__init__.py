"""Kernel models: families of kernels with hyperparameter search spaces."""

from svmtune.kernels._base import KernelModel, PreparedKernel
from svmtune.kernels.rbf import RBF

__all__ = ["RBF", "KernelModel", "PreparedKernel"]
