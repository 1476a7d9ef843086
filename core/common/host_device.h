// CONTACTSIM_HOST_DEVICE marks a function that both the host compiler and nvcc compile: under
// nvcc (__CUDACC__) it is __host__ __device__, so one definition serves the CPU code and the CUDA
// kernels (e.g. the CCD narrow phase in core/collision/ccd/, run by gpu/src/batch_ccd.cu); for
// the host compiler it expands to nothing. Functions so marked use no absl or std containers that
// allocate, no exceptions and no thread_local state.
#pragma once

#if defined(__CUDACC__)
#define CONTACTSIM_HOST_DEVICE __host__ __device__
#else
#define CONTACTSIM_HOST_DEVICE
#endif
