/*! \brief Declarations shared by the pybind11 binding files of symnet._core. */
#ifndef SYMNET_PYTHON_SRC_BINDINGS_H_
#define SYMNET_PYTHON_SRC_BINDINGS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "symnet/symnet.h"

namespace symnet {
namespace python {

namespace py = pybind11;

void InitNDArray(py::module_& m);
void InitSymbol(py::module_& m);
void InitExecutor(py::module_& m);
void InitRegistry(py::module_& m);
void InitAmp(py::module_& m);
void InitIO(py::module_& m);
void InitTrain(py::module_& m);
void InitCustomOp(py::module_& m);
void InitAutograd(py::module_& m);
void InitDist(py::module_& m);
void InitProfiler(py::module_& m);

/*! \brief Shape <-> Python: a tuple of ints, or None when the ndim is unknown (None dims too). */
py::object ShapeToPy(const Shape& s);
Shape ShapeFromPy(const py::handle& obj);
/*! \brief Device from (dev_type, dev_id). */
Device DeviceFromPy(const py::handle& obj);

}  // namespace python
}  // namespace symnet

#endif  // SYMNET_PYTHON_SRC_BINDINGS_H_
