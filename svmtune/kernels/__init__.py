"""Kernel models: families of kernels with hyperparameter search spaces."""

from svmtune.kernels._base import KernelModel, PreparedKernel
from svmtune.kernels._distances import inner_products
from svmtune.kernels.anisotropic_rbf import AnisotropicRBF
from svmtune.kernels.linear import Linear
from svmtune.kernels.multiple_kernel import MultipleKernel
from svmtune.kernels.rbf import RBF
from svmtune.kernels.row_forms import InnerProductForm

__all__ = [
    "RBF",
    "AnisotropicRBF",
    "InnerProductForm",
    "KernelModel",
    "Linear",
    "MultipleKernel",
    "PreparedKernel",
    "inner_products",
]
