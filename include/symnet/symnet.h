/*! \brief The one include for symnet's C++ API. */
#ifndef SYMNET_SYMNET_H_
#define SYMNET_SYMNET_H_

#include "symnet/amp.h"
#include "symnet/autograd.h"
#include "symnet/base.h"
#include "symnet/collectives.h"
#include "symnet/device.h"
#include "symnet/dtype.h"
#include "symnet/executor.h"
#include "symnet/file_io.h"
#include "symnet/image_record_iter.h"
#include "symnet/imperative.h"
#include "symnet/models/resnet.h"
#include "symnet/ndarray.h"
#include "symnet/ndarray_io.h"
#include "symnet/op.h"
#include "symnet/operator_builder.h"
#include "symnet/ops.h"
#include "symnet/pass.h"
#include "symnet/profiler.h"
#include "symnet/random.h"
#include "symnet/recordio.h"
#include "symnet/runtime.h"
#include "symnet/shape.h"
#include "symnet/symbol.h"
#include "symnet/train.h"

#endif  // SYMNET_SYMNET_H_
