/*!
 * \brief MXNet's NDArray-list file format (.params): save and load, byte-compatible with
 *  MXNet 1.x (`mx.nd.save` / `mx.nd.load`, checkpoints with "arg:"/"aux:" names).
 */
#ifndef SYMNET_NDARRAY_IO_H_
#define SYMNET_NDARRAY_IO_H_

#include <string>
#include <vector>

#include "symnet/ndarray.h"

namespace symnet {

/*!
 * \brief Serialises arrays (and optional names, one per array) as MXNet does: list magic 0x112,
 *  a reserved word, the arrays in the V2 format (magic 0xF993fac9, storage type, int32 ndim +
 *  int64 dims, int32 dev_type/dev_id, int32 dtype flag, raw little-endian data), the names.
 *  `numpy_shape` (MXNet's np_shape on while saving) writes the V3 (numpy-shape) layout, magic
 *  0xF993faca, as MXNet does then; a 0-d array makes the whole file V3 in any case.
 */
std::string SaveNDArrayList(const std::vector<NDArray>& arrays,
                            const std::vector<std::string>& names, bool numpy_shape = false);

/*!
 * \brief The shape semantics (MXNet's np_shape) a load runs under, which decide the layouts it
 *  takes, as MXNet's NDArray::Load: a V3 array only with np_shape on; a V2 array not under one
 *  thread's np_shape, but under set_np_shape(2) (on in every thread). kAny (C++ callers: their
 *  checkpoints, the optimizer states) takes every layout. V1 and older layouts load in any mode.
 */
enum class LoadShapeSemantics { kAny, kLegacy, kNumpyThread, kNumpyGlobal };

/*!
 * \brief Parses that format (also MXNet's V1 and pre-V1 legacy array layouts). Every read is
 *  bounds-checked: a truncated or damaged file gives an error saying what was wrong at which
 *  byte, never an out-of-bounds read. `what` names the source in messages.
 */
void LoadNDArrayList(const std::string& bytes, std::vector<NDArray>* arrays,
                     std::vector<std::string>* names, const std::string& what = "NDArray list",
                     LoadShapeSemantics semantics = LoadShapeSemantics::kAny);

/*! \brief File versions of the above. */
void SaveNDArrays(const std::string& path, const std::vector<NDArray>& arrays,
                  const std::vector<std::string>& names, bool numpy_shape = false);
void LoadNDArrays(const std::string& path, std::vector<NDArray>* arrays,
                  std::vector<std::string>* names,
                  LoadShapeSemantics semantics = LoadShapeSemantics::kAny);

}  // namespace symnet

#endif  // SYMNET_NDARRAY_IO_H_
