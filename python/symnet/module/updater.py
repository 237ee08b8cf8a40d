"""ModuleUpdater: a Module's optimizer and per-parameter states seen as MXNet's Updater.

MXNet code reaches a module's optimizer states through `mod._updater.states` (one device) or
`mod._kvstore._updater.states` (several devices, where MXNet updates on the store). A symnet
Module updates on its devices itself and keeps one state per parameter index (the first
device's; the other devices' are copies); this object shows those states, without copying, under
MXNet's names, and applies the module's optimizer when called as an updater.
"""


class ModuleUpdater:
    """The updater view of a Module (see the module docstring)."""

    def __init__(self, module):
        self._module = module

    @property
    def optimizer(self):
        return self._module._optimizer

    @property
    def states(self):
        """{parameter index: optimizer state} of the module (the dict itself)."""
        return self._module._states

    @states.setter
    def states(self, states):
        self._module._states.clear()
        self._module._states.update(states)
        self._module._dev_states.clear()

    def __call__(self, index, grad, weight):
        """One optimizer step on `weight` with `grad`, under the module's state of `index`."""
        states = self._module._states
        if index not in states:
            states[index] = self.optimizer.create_state(index, weight)
        self.optimizer.update(index, weight, grad, states[index])
