"""Model builders returning symbols (the C++ twins live in include/symnet/models/)."""
from .resnet import cifar_resnet, resnet

__all__ = ["resnet", "cifar_resnet"]
