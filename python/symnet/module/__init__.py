"""mx.mod: MXNet's module API laid out as MXNet 1.9.1's package: BaseModule (the interface and
the fit/score/predict loops), Module (a symbol bound on one or more devices through a
DataParallelExecutorGroup), BucketingModule (a module per bucket over shared parameters),
SequentialModule (modules chained), PythonModule and PythonLossModule (modules written in
Python)."""
from . import base_module, bucketing_module, executor_group, module, python_module, sequential_module
from .base_module import BaseModule
from .bucketing_module import BucketingModule
from .module import Module
from .python_module import PythonLossModule, PythonModule
from .sequential_module import SequentialModule
