#pragma once
/// \file
/// \brief Portability macros shared by the front end and every backend.

#if defined(__CUDACC__) || defined(__HIPCC__)
#define PARPRIM_HOST_DEVICE __host__ __device__
#else
#define PARPRIM_HOST_DEVICE
#endif
