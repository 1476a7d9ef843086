#include "cuda_library_handles.h"
#include "cuda_status.h"

namespace contactsim::gpu {

absl::StatusOr<std::unique_ptr<CudaLibraryHandles>> CudaLibraryHandles::Create() {
  std::unique_ptr<CudaLibraryHandles> h(new CudaLibraryHandles());
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&h->stream_, cudaStreamNonBlocking));
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseCreate(&h->sparse_));
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSetStream(h->sparse_, h->stream_));
  return h;
}

CudaLibraryHandles::~CudaLibraryHandles() {
  if (sparse_ != nullptr) (void)cusparseDestroy(sparse_);
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

}  // namespace contactsim::gpu
