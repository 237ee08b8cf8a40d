/*!
 * \brief Reproducible random numbers: a global seed plus counter-based streams, so that kernels
 *  (CPU or GPU) draw element i of stream k as a pure function of (seed, k, i).
 */
#ifndef SYMNET_RANDOM_H_
#define SYMNET_RANDOM_H_

#include <cstdint>

#include "symnet/base.h"

namespace symnet {

/*! \brief Restarts all random streams from `seed` (symnet.random.seed in Python). */
void SeedRandom(uint64_t seed);
/*! \brief A fresh stream key; successive calls give different, seed-determined keys. */
uint64_t NextRandomStream();

/*! \brief SplitMix64 finaliser: a strong 64-bit mix. */
SYMNET_XINLINE uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/*! \brief Uniform in [0, 1) for element `i` of stream `key` (24 random bits). */
SYMNET_XINLINE float UniformAt(uint64_t key, uint64_t i) {
  const uint64_t r = Mix64(key ^ Mix64(i + 0x9e3779b97f4a7c15ULL));
  return static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
}

/*! \brief 64 random bits for element `i` of stream `key` (the bits UniformAt rounds). */
SYMNET_XINLINE uint64_t RandomBitsAt(uint64_t key, uint64_t i) {
  return Mix64(key ^ Mix64(i + 0x9e3779b97f4a7c15ULL));
}

/*! \brief Uniform in [0, 1) with 53 random bits, for samplers that compute in double (a 24-bit
 *  uniform would cut a normal's or exponential's tail short at about 5.8 sigma). */
SYMNET_XINLINE double UniformDoubleAt(uint64_t key, uint64_t i) {
  return static_cast<double>(RandomBitsAt(key, i) >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace symnet

#endif  // SYMNET_RANDOM_H_
