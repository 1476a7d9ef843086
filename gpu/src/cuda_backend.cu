#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/linalg/shape_checks.h"
#include "csr_rows_times_block.cuh"
#include "cuda_backend.h"
#include "cuda_status.h"
#include "dense_kernels.cuh"

namespace contactsim::gpu {
namespace {

using core::CsrMatrix;
using core::DenseId;
using core::Op;
using core::SparseId;

constexpr int kThreads = 256;

int BlocksFor(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

__global__ void GatherKernel(const double* source, const int32_t* permutation, double* out,
                             int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = source[permutation[i]];
}

__global__ void IotaKernel(int32_t* out, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<int32_t>(i);
}

absl::Status LaunchStatus(const char* kernel) { return ToStatus(cudaGetLastError(), kernel); }

absl::StatusOr<SpMatDescr> MakeCsrDescr(const CudaBackend::DeviceCsr& a) {
  cusparseSpMatDescr_t d = nullptr;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseCreateCsr(
      &d, a.rows, a.cols, a.nnz, a.offsets.data(), a.indices.data(), a.values.data(),
      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  return SpMatDescr(d);
}

absl::StatusOr<DnMatDescr> MakeRowMajorDescr(const CudaBackend::DeviceDense& x) {
  cusparseDnMatDescr_t d = nullptr;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseCreateDnMat(&d, x.rows, x.cols, x.cols, x.data.data(),
                                                      CUDA_R_64F, CUSPARSE_ORDER_ROW));
  return DnMatDescr(d);
}

absl::StatusOr<LegacyMatDescr> MakeGeneralDescr() {
  cusparseMatDescr_t d = nullptr;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseCreateMatDescr(&d));
  LegacyMatDescr owned(d);
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_GENERAL));
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ZERO));
  return owned;
}

// The tiled product's grid: at most 65,535 tiles down the rows.
absl::Status CheckTileGrid(int32_t rows, int32_t cols, const char* operand) {
  if ((static_cast<int64_t>(rows) + kTile - 1) / kTile > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(operand, ": ", rows, " x ", cols, " is beyond the dense product's grid"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CudaBackend>> CudaBackend::Create(
    const CudaBackendOptions& options) {
  if (absl::Status usable = CudaUsable(); !usable.ok()) return usable;
  int count = 0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&count));
  if (options.device_index < 0 || options.device_index >= count) {
    return absl::InvalidArgumentError(absl::StrCat("device_index: ", options.device_index,
                                                   " is not one of the ", count, " devices"));
  }
  std::unique_ptr<CudaBackend> backend(
      new CudaBackend(options.device_index, options.cusparse_spmm_only));
  backend->account_.budget = options.budget;
  if (absl::Status s = backend->MakeCurrent(); !s.ok()) return s;
  auto handles = CudaLibraryHandles::Create();
  if (!handles.ok()) return handles.status();
  backend->handles_ = *std::move(handles);
  auto scratch = DeviceBuffer::Allocate((kDotBlocks + 1) * 8, &backend->account_, "dot scratch");
  if (!scratch.ok()) return scratch.status();
  backend->dot_scratch_ = *std::move(scratch);
  return backend;
}

CudaBackend::~CudaBackend() {
  // Let queued work finish before the buffers it uses are freed (cudaFree also waits).
  if (handles_ != nullptr) (void)cudaStreamSynchronize(handles_->stream());
}

absl::Status CudaBackend::MakeCurrent() const {
  return ToStatus(cudaSetDevice(device_index_), "cudaSetDevice");
}

absl::Status CudaBackend::Synchronize() {
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(handles_->stream()));
  return absl::OkStatus();
}

absl::StatusOr<CudaBackend::DeviceCsr*> CudaBackend::GetSparse(SparseId id,
                                                               const char* operand) const {
  if (id.value < 0 || id.value >= static_cast<int32_t>(sparse_.size()) ||
      sparse_[id.value] == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(operand, ": unknown sparse id ", id.value));
  }
  return sparse_[id.value].get();
}

absl::StatusOr<CudaBackend::DeviceDense*> CudaBackend::GetDense(DenseId id,
                                                                const char* operand) const {
  if (id.value < 0 || id.value >= static_cast<int32_t>(dense_.size()) ||
      dense_[id.value] == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(operand, ": unknown dense id ", id.value));
  }
  return dense_[id.value].get();
}

absl::StatusOr<std::unique_ptr<CudaBackend::DeviceCsr>> CudaBackend::AllocateCsr(int32_t rows,
                                                                                 int32_t cols,
                                                                                 int64_t nnz,
                                                                                 const char* what) {
  if (nnz > INT_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", nnz, " nonzeros exceed the int32 CSR indices"));
  }
  auto m = std::make_unique<DeviceCsr>();
  m->rows = rows;
  m->cols = cols;
  m->nnz = nnz;
  auto offsets = DeviceBuffer::Allocate((static_cast<int64_t>(rows) + 1) * 4, &account_, what);
  if (!offsets.ok()) return offsets.status();
  m->offsets = *std::move(offsets);
  auto indices = DeviceBuffer::Allocate(nnz * 4, &account_, what);
  if (!indices.ok()) return indices.status();
  m->indices = *std::move(indices);
  auto values = DeviceBuffer::Allocate(nnz * 8, &account_, what);
  if (!values.ok()) return values.status();
  m->values = *std::move(values);
  return m;
}

SparseId CudaBackend::Adopt(std::unique_ptr<DeviceCsr> matrix) {
  sparse_.push_back(std::move(matrix));
  return SparseId{static_cast<int32_t>(sparse_.size() - 1)};
}

absl::StatusOr<void*> CudaBackend::Workspace(size_t bytes) {
  if (static_cast<int64_t>(bytes) > workspace_.bytes()) {
    workspace_ = DeviceBuffer();  // give the old one back before taking the larger one
    auto grown = DeviceBuffer::Allocate(static_cast<int64_t>(bytes), &account_, "workspace");
    if (!grown.ok()) return grown.status();
    workspace_ = *std::move(grown);
  }
  return workspace_.data();
}

absl::Status CudaBackend::ScaleRaw(double beta, double* y, int64_t n) {
  if (n == 0 || beta == 1.0) return absl::OkStatus();
  if (beta == 0.0) {
    FillKernel<<<ElementwiseBlocks(n), kElementwiseThreads, 0, handles_->stream()>>>(y, n, 0.0);
    return LaunchStatus("FillKernel");
  }
  ScaleKernel<<<ElementwiseBlocks(n), kElementwiseThreads, 0, handles_->stream()>>>(y, n, beta);
  return LaunchStatus("ScaleKernel");
}

absl::StatusOr<SparseId> CudaBackend::UploadCsr(const CsrMatrix& matrix) {
  if (absl::Status s = core::ValidateCsr(matrix); !s.ok()) return s;
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  auto m = AllocateCsr(matrix.rows, matrix.cols, matrix.nnz(), "sparse matrix");
  if (!m.ok()) return m.status();
  cudaStream_t stream = handles_->stream();
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync((*m)->offsets.data(), matrix.row_offsets.data(),
                                                  matrix.row_offsets.size() * 4,
                                                  cudaMemcpyHostToDevice, stream));
  if (matrix.nnz() > 0) {
    CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync((*m)->indices.data(), matrix.col_indices.data(),
                                                    matrix.nnz() * 4, cudaMemcpyHostToDevice,
                                                    stream));
    CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync((*m)->values.data(), matrix.values.data(),
                                                    matrix.nnz() * 8, cudaMemcpyHostToDevice,
                                                    stream));
  }
  return Adopt(*std::move(m));
}

absl::StatusOr<CsrMatrix> CudaBackend::DownloadCsr(SparseId id) const {
  auto a = GetSparse(id, "a");
  if (!a.ok()) return a.status();
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  const DeviceCsr& m = **a;
  CsrMatrix out;
  out.rows = m.rows;
  out.cols = m.cols;
  out.row_offsets.resize(static_cast<size_t>(m.rows) + 1);
  out.col_indices.resize(m.nnz);
  out.values.resize(m.nnz);
  cudaStream_t stream = handles_->stream();
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.row_offsets.data(), m.offsets.data(),
                                                  out.row_offsets.size() * 4,
                                                  cudaMemcpyDeviceToHost, stream));
  if (m.nnz > 0) {
    CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.col_indices.data(), m.indices.data(),
                                                    m.nnz * 4, cudaMemcpyDeviceToHost, stream));
    CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out.values.data(), m.values.data(), m.nnz * 8,
                                                    cudaMemcpyDeviceToHost, stream));
  }
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return out;
}

absl::Status CudaBackend::ReleaseSparse(SparseId id) {
  auto a = GetSparse(id, "id");
  if (!a.ok()) return a.status();
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  sparse_[id.value].reset();
  return absl::OkStatus();
}

absl::StatusOr<DenseId> CudaBackend::CreateDense(int32_t rows, int32_t cols) {
  if (rows < 0 || cols < 0) {
    return absl::InvalidArgumentError(absl::StrCat("shape: ", rows, " x ", cols, " is not valid"));
  }
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  auto d = std::make_unique<DeviceDense>();
  d->rows = rows;
  d->cols = cols;
  auto data = DeviceBuffer::Allocate(d->size() * 8, &account_, "dense block");
  if (!data.ok()) return data.status();
  d->data = *std::move(data);
  if (d->size() > 0) {
    CONTACTSIM_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(d->data.data(), 0, d->size() * 8, handles_->stream()));
  }
  dense_.push_back(std::move(d));
  return DenseId{static_cast<int32_t>(dense_.size() - 1)};
}

absl::Status CudaBackend::UploadDense(DenseId id, absl::Span<const double> row_major) {
  auto d = GetDense(id, "id");
  if (!d.ok()) return d.status();
  if (static_cast<int64_t>(row_major.size()) != (*d)->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("row_major: size ", row_major.size(), ", expected ", (*d)->size()));
  }
  if (row_major.empty()) return absl::OkStatus();
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  // From pageable memory the call returns once the source has been staged, so the caller may
  // reuse its array at once.
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync((*d)->data.data(), row_major.data(),
                                                  row_major.size() * 8, cudaMemcpyHostToDevice,
                                                  handles_->stream()));
  return absl::OkStatus();
}

absl::Status CudaBackend::DownloadDense(DenseId id, absl::Span<double> row_major) const {
  auto d = GetDense(id, "id");
  if (!d.ok()) return d.status();
  if (static_cast<int64_t>(row_major.size()) != (*d)->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("row_major: size ", row_major.size(), ", expected ", (*d)->size()));
  }
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  if (!row_major.empty()) {
    CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(row_major.data(), (*d)->data.data(),
                                                    row_major.size() * 8, cudaMemcpyDeviceToHost,
                                                    handles_->stream()));
  }
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(handles_->stream()));
  return absl::OkStatus();
}

absl::Status CudaBackend::ReleaseDense(DenseId id) {
  auto d = GetDense(id, "id");
  if (!d.ok()) return d.status();
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  dense_[id.value].reset();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CudaBackend::DeviceCsr>> CudaBackend::TransposeOf(
    const DeviceCsr& a) {
  auto t = AllocateCsr(a.cols, a.rows, a.nnz, "transpose");
  if (!t.ok()) return t.status();
  if (a.nnz == 0) {
    CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(
        (*t)->offsets.data(), 0, (static_cast<size_t>(a.cols) + 1) * 4, handles_->stream()));
    return t;
  }
  size_t bytes = 0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseCsr2cscEx2_bufferSize(
      handles_->sparse(), a.rows, a.cols, static_cast<int>(a.nnz), a.values.as<double>(),
      a.offsets.as<int>(), a.indices.as<int>(), (*t)->values.as<double>(), (*t)->offsets.as<int>(),
      (*t)->indices.as<int>(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
      CUSPARSE_CSR2CSC_ALG1, &bytes));
  auto work = Workspace(std::max<size_t>(bytes, 1));
  if (!work.ok()) return work.status();
  // CSC of A (column offsets, row indices, sorted) is the CSR of A^T.
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseCsr2cscEx2(
      handles_->sparse(), a.rows, a.cols, static_cast<int>(a.nnz), a.values.as<double>(),
      a.offsets.as<int>(), a.indices.as<int>(), (*t)->values.as<double>(), (*t)->offsets.as<int>(),
      (*t)->indices.as<int>(), CUDA_R_64F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
      CUSPARSE_CSR2CSC_ALG1, *work));
  return t;
}

absl::Status CudaBackend::SpMM(double alpha, SparseId a_id, Op op_a, DenseId x_id, double beta,
                               DenseId y_id) {
  auto slot = GetSparse(a_id, "a");
  if (!slot.ok()) return slot.status();
  auto x_or = GetDense(x_id, "x");
  if (!x_or.ok()) return x_or.status();
  auto y_or = GetDense(y_id, "y");
  if (!y_or.ok()) return y_or.status();
  if (x_id.value == y_id.value) return absl::InvalidArgumentError("y: must differ from x");
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  DeviceCsr* a = *slot;
  if (op_a == Op::kTranspose) {
    if (a->transpose == nullptr) {
      auto t = TransposeOf(*a);
      if (!t.ok()) return t.status();
      a->transpose = *std::move(t);
    }
    a = a->transpose.get();
  }
  const DeviceDense& x = **x_or;
  DeviceDense& y = **y_or;
  if (absl::Status s =
          core::CheckSpMMShapes({a->rows, a->cols}, {x.rows, x.cols}, {y.rows, y.cols});
      !s.ok()) {
    return s;
  }
  if (y.size() == 0) return absl::OkStatus();
  if (a->nnz == 0) return ScaleRaw(beta, y.data.as<double>(), y.size());
  if (!cusparse_spmm_only_ && x.cols <= kMaxNarrowColumns) return NarrowSpMM(alpha, *a, x, beta, y);
  // beta = 0 must not read y (it may hold NaN): zero it first, as the CPU overwrites it.
  if (beta == 0.0) {
    if (absl::Status s = ScaleRaw(0.0, y.data.as<double>(), y.size()); !s.ok()) return s;
  }
  auto a_descr = MakeCsrDescr(*a);
  if (!a_descr.ok()) return a_descr.status();
  auto x_descr = MakeRowMajorDescr(x);
  if (!x_descr.ok()) return x_descr.status();
  auto y_descr = MakeRowMajorDescr(y);
  if (!y_descr.ok()) return y_descr.status();
  size_t bytes = 0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSpMM_bufferSize(
      handles_->sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
      &alpha, a_descr->get(), x_descr->get(), &beta, y_descr->get(), CUDA_R_64F,
      CUSPARSE_SPMM_ALG_DEFAULT, &bytes));
  auto work = Workspace(std::max<size_t>(bytes, 1));
  if (!work.ok()) return work.status();
  CONTACTSIM_CUDA_RETURN_IF_ERROR(
      cusparseSpMM(handles_->sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                   CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a_descr->get(), x_descr->get(), &beta,
                   y_descr->get(), CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, *work));
  return absl::OkStatus();
}

absl::Status CudaBackend::NarrowSpMM(double alpha, const DeviceCsr& a, const DeviceDense& x,
                                     double beta, DeviceDense& y) {
  LaunchCsrRowsTimesBlock(x.cols, a.rows, a.offsets.as<int32_t>(), a.indices.as<int32_t>(),
                          a.values.as<double>(), x.data.as<double>(), alpha, beta,
                          y.data.as<double>(), handles_->stream());
  return LaunchStatus("CsrRowsTimesBlockKernel");
}

absl::Status CudaBackend::SortRows(DeviceCsr& c) {
  if (c.nnz <= 1) return absl::OkStatus();
  cusparseHandle_t h = handles_->sparse();
  size_t bytes = 0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(
      cusparseXcsrsort_bufferSizeExt(h, c.rows, c.cols, static_cast<int>(c.nnz),
                                     c.offsets.as<int>(), c.indices.as<int>(), &bytes));
  auto permutation = DeviceBuffer::Allocate(c.nnz * 4, &account_, "sort permutation");
  if (!permutation.ok()) return permutation.status();
  auto sorted = DeviceBuffer::Allocate(c.nnz * 8, &account_, "sorted values");
  if (!sorted.ok()) return sorted.status();
  auto work = Workspace(std::max<size_t>(bytes, 1));
  if (!work.ok()) return work.status();
  auto general = MakeGeneralDescr();
  if (!general.ok()) return general.status();
  IotaKernel<<<BlocksFor(c.nnz), kThreads, 0, handles_->stream()>>>(permutation->as<int32_t>(),
                                                                    c.nnz);
  if (absl::Status s = LaunchStatus("IotaKernel"); !s.ok()) return s;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(
      cusparseXcsrsort(h, c.rows, c.cols, static_cast<int>(c.nnz), general->get(),
                       c.offsets.as<int>(), c.indices.as<int>(), permutation->as<int>(), *work));
  GatherKernel<<<BlocksFor(c.nnz), kThreads, 0, handles_->stream()>>>(
      c.values.as<double>(), permutation->as<int32_t>(), sorted->as<double>(), c.nnz);
  if (absl::Status s = LaunchStatus("GatherKernel"); !s.ok()) return s;
  c.values = *std::move(sorted);
  return absl::OkStatus();
}

absl::StatusOr<SparseId> CudaBackend::SpGEMM(SparseId a_id, SparseId b_id) {
  auto a_or = GetSparse(a_id, "a");
  if (!a_or.ok()) return a_or.status();
  auto b_or = GetSparse(b_id, "b");
  if (!b_or.ok()) return b_or.status();
  const DeviceCsr& a = **a_or;
  const DeviceCsr& b = **b_or;
  if (a.cols != b.rows) {
    return absl::InvalidArgumentError(
        absl::StrCat("a/b: inner dimensions ", a.cols, " and ", b.rows, " differ"));
  }
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  cudaStream_t stream = handles_->stream();
  if (a.nnz == 0 || b.nnz == 0) {
    auto c = AllocateCsr(a.rows, b.cols, 0, "product");
    if (!c.ok()) return c.status();
    CONTACTSIM_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync((*c)->offsets.data(), 0, (static_cast<size_t>(a.rows) + 1) * 4, stream));
    return Adopt(*std::move(c));
  }
  cusparseHandle_t h = handles_->sparse();
  auto a_descr = MakeCsrDescr(a);
  if (!a_descr.ok()) return a_descr.status();
  auto b_descr = MakeCsrDescr(b);
  if (!b_descr.ok()) return b_descr.status();
  auto c = AllocateCsr(a.rows, b.cols, 0, "product");
  if (!c.ok()) return c.status();
  cusparseSpMatDescr_t c_raw = nullptr;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseCreateCsr(
      &c_raw, a.rows, b.cols, 0, (*c)->offsets.data(), nullptr, nullptr, CUSPARSE_INDEX_32I,
      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  SpMatDescr c_descr(c_raw);
  cusparseSpGEMMDescr_t g_raw = nullptr;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSpGEMM_createDescr(&g_raw));
  SpGEMMDescr g(g_raw);
  const double one = 1.0;
  const double zero = 0.0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t bytes1 = 0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSpGEMM_workEstimation(
      h, op, op, &one, a_descr->get(), b_descr->get(), &zero, c_descr.get(), CUDA_R_64F,
      CUSPARSE_SPGEMM_DEFAULT, g.get(), &bytes1, nullptr));
  auto buffer1 = DeviceBuffer::Allocate(static_cast<int64_t>(std::max<size_t>(bytes1, 1)),
                                        &account_, "spgemm work");
  if (!buffer1.ok()) return buffer1.status();
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSpGEMM_workEstimation(
      h, op, op, &one, a_descr->get(), b_descr->get(), &zero, c_descr.get(), CUDA_R_64F,
      CUSPARSE_SPGEMM_DEFAULT, g.get(), &bytes1, buffer1->data()));
  size_t bytes2 = 0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(
      cusparseSpGEMM_compute(h, op, op, &one, a_descr->get(), b_descr->get(), &zero, c_descr.get(),
                             CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g.get(), &bytes2, nullptr));
  auto buffer2 = DeviceBuffer::Allocate(static_cast<int64_t>(std::max<size_t>(bytes2, 1)),
                                        &account_, "spgemm work");
  if (!buffer2.ok()) return buffer2.status();
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSpGEMM_compute(
      h, op, op, &one, a_descr->get(), b_descr->get(), &zero, c_descr.get(), CUDA_R_64F,
      CUSPARSE_SPGEMM_DEFAULT, g.get(), &bytes2, buffer2->data()));
  int64_t rows = 0, cols = 0, nnz = 0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSpMatGetSize(c_descr.get(), &rows, &cols, &nnz));
  if (nnz > INT_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat("a/b: the product has ", nnz, " nonzeros, beyond int32 CSR indices"));
  }
  auto indices = DeviceBuffer::Allocate(nnz * 4, &account_, "product");
  if (!indices.ok()) return indices.status();
  auto values = DeviceBuffer::Allocate(nnz * 8, &account_, "product");
  if (!values.ok()) return values.status();
  (*c)->nnz = nnz;
  (*c)->indices = *std::move(indices);
  (*c)->values = *std::move(values);
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseCsrSetPointers(
      c_descr.get(), (*c)->offsets.data(), (*c)->indices.data(), (*c)->values.data()));
  CONTACTSIM_CUDA_RETURN_IF_ERROR(
      cusparseSpGEMM_copy(h, op, op, &one, a_descr->get(), b_descr->get(), &zero, c_descr.get(),
                          CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, g.get()));
  if (absl::Status s = SortRows(**c); !s.ok()) return s;
  // The work buffers are freed on return; cudaFree waits for the queued product first.
  return Adopt(*std::move(c));
}

absl::StatusOr<std::unique_ptr<CudaBackend::DeviceCsr>> CudaBackend::ScaledCopy(const DeviceCsr& a,
                                                                                double alpha,
                                                                                const char* what) {
  auto c = AllocateCsr(a.rows, a.cols, a.nnz, what);
  if (!c.ok()) return c.status();
  cudaStream_t stream = handles_->stream();
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync((*c)->offsets.data(), a.offsets.data(),
                                                  (static_cast<size_t>(a.rows) + 1) * 4,
                                                  cudaMemcpyDeviceToDevice, stream));
  if (a.nnz == 0) return c;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync((*c)->indices.data(), a.indices.data(), a.nnz * 4,
                                                  cudaMemcpyDeviceToDevice, stream));
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync((*c)->values.data(), a.values.data(), a.nnz * 8,
                                                  cudaMemcpyDeviceToDevice, stream));
  ScaleKernel<<<ElementwiseBlocks(a.nnz), kElementwiseThreads, 0, stream>>>(
      (*c)->values.as<double>(), a.nnz, alpha);
  if (absl::Status s = LaunchStatus("ScaleKernel"); !s.ok()) return s;
  return c;
}

absl::StatusOr<SparseId> CudaBackend::Transpose(SparseId a_id) {
  auto a = GetSparse(a_id, "a");
  if (!a.ok()) return a.status();
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  auto t = TransposeOf(**a);
  if (!t.ok()) return t.status();
  return Adopt(*std::move(t));
}

absl::StatusOr<SparseId> CudaBackend::SpAdd(double alpha, SparseId a_id, double beta,
                                            SparseId b_id) {
  auto a_or = GetSparse(a_id, "a");
  if (!a_or.ok()) return a_or.status();
  auto b_or = GetSparse(b_id, "b");
  if (!b_or.ok()) return b_or.status();
  const DeviceCsr& a = **a_or;
  const DeviceCsr& b = **b_or;
  if (a.rows != b.rows || a.cols != b.cols) return absl::InvalidArgumentError("a/b: shapes differ");
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  // csrgeam2 needs arrays to read: an operand without entries contributes the other one, scaled.
  if (a.nnz == 0 || b.nnz == 0) {
    auto copy = a.nnz == 0 ? ScaledCopy(b, beta, "sum") : ScaledCopy(a, alpha, "sum");
    if (!copy.ok()) return copy.status();
    return Adopt(*std::move(copy));
  }
  cusparseHandle_t h = handles_->sparse();
  auto general = MakeGeneralDescr();
  if (!general.ok()) return general.status();
  cusparseMatDescr_t d = general->get();
  auto c = AllocateCsr(a.rows, a.cols, 0, "sum");
  if (!c.ok()) return c.status();
  size_t bytes = 0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseDcsrgeam2_bufferSizeExt(
      h, a.rows, a.cols, &alpha, d, static_cast<int>(a.nnz), a.values.as<double>(),
      a.offsets.as<int>(), a.indices.as<int>(), &beta, d, static_cast<int>(b.nnz),
      b.values.as<double>(), b.offsets.as<int>(), b.indices.as<int>(), d, nullptr,
      (*c)->offsets.as<int>(), nullptr, &bytes));
  auto work = Workspace(std::max<size_t>(bytes, 1));
  if (!work.ok()) return work.status();
  int nnz = 0;
  // Host pointer mode (the default): the count comes back to the host, which waits for it.
  CONTACTSIM_CUDA_RETURN_IF_ERROR(
      cusparseXcsrgeam2Nnz(h, a.rows, a.cols, d, static_cast<int>(a.nnz), a.offsets.as<int>(),
                           a.indices.as<int>(), d, static_cast<int>(b.nnz), b.offsets.as<int>(),
                           b.indices.as<int>(), d, (*c)->offsets.as<int>(), &nnz, *work));
  auto indices = DeviceBuffer::Allocate(static_cast<int64_t>(nnz) * 4, &account_, "sum");
  if (!indices.ok()) return indices.status();
  auto values = DeviceBuffer::Allocate(static_cast<int64_t>(nnz) * 8, &account_, "sum");
  if (!values.ok()) return values.status();
  (*c)->nnz = nnz;
  (*c)->indices = *std::move(indices);
  (*c)->values = *std::move(values);
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseDcsrgeam2(
      h, a.rows, a.cols, &alpha, d, static_cast<int>(a.nnz), a.values.as<double>(),
      a.offsets.as<int>(), a.indices.as<int>(), &beta, d, static_cast<int>(b.nnz),
      b.values.as<double>(), b.offsets.as<int>(), b.indices.as<int>(), d, (*c)->values.as<double>(),
      (*c)->offsets.as<int>(), (*c)->indices.as<int>(), *work));
  return Adopt(*std::move(c));
}

absl::Status CudaBackend::Gram(SparseId a_id, DenseId c_id) {
  auto a_or = GetSparse(a_id, "a");
  if (!a_or.ok()) return a_or.status();
  auto c_or = GetDense(c_id, "c");
  if (!c_or.ok()) return c_or.status();
  const DeviceCsr& a = **a_or;
  DeviceDense& c = **c_or;
  if (c.rows != a.rows || c.cols != a.rows) {
    return absl::InvalidArgumentError(absl::StrCat(
        "c: shape ", c.rows, "x", c.cols, ", expected rows(a) x rows(a) = ", a.rows, "x", a.rows));
  }
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  if (c.size() == 0) return absl::OkStatus();
  if (a.nnz == 0 || a.cols == 0) return ScaleRaw(0.0, c.data.as<double>(), c.size());
  if (absl::Status s = CheckTileGrid(a.rows, a.rows, "a"); !s.ok()) return s;
  // D = dense(A), row-major rows x cols, and C = D D^T by the tiled product with op(B) = D^T
  // (exactly symmetric: dense_kernels.cuh).
  DeviceDense dense_a;
  dense_a.rows = a.rows;
  dense_a.cols = a.cols;
  auto data = DeviceBuffer::Allocate(dense_a.size() * 8, &account_, "gram: dense(a)");
  if (!data.ok()) return data.status();
  dense_a.data = *std::move(data);
  auto a_descr = MakeCsrDescr(a);
  if (!a_descr.ok()) return a_descr.status();
  auto d_descr = MakeRowMajorDescr(dense_a);
  if (!d_descr.ok()) return d_descr.status();
  size_t bytes = 0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(
      cusparseSparseToDense_bufferSize(handles_->sparse(), a_descr->get(), d_descr->get(),
                                       CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &bytes));
  auto work = Workspace(std::max<size_t>(bytes, 1));
  if (!work.ok()) return work.status();
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cusparseSparseToDense(handles_->sparse(), a_descr->get(),
                                                        d_descr->get(),
                                                        CUSPARSE_SPARSETODENSE_ALG_DEFAULT, *work));
  LaunchTiledProduct<true>(a.rows, a.rows, a.cols, 1.0, dense_a.data.as<double>(),
                           dense_a.data.as<double>(), 0.0, c.data.as<double>(), handles_->stream());
  return LaunchStatus("TiledProductKernel (gram)");
}

absl::Status CudaBackend::Gemm(double alpha, DenseId a_id, DenseId b_id, double beta,
                               DenseId c_id) {
  auto a_or = GetDense(a_id, "a");
  if (!a_or.ok()) return a_or.status();
  auto b_or = GetDense(b_id, "b");
  if (!b_or.ok()) return b_or.status();
  auto c_or = GetDense(c_id, "c");
  if (!c_or.ok()) return c_or.status();
  if (c_id.value == a_id.value || c_id.value == b_id.value) {
    return absl::InvalidArgumentError("c: must differ from a and b");
  }
  const DeviceDense& a = **a_or;
  const DeviceDense& b = **b_or;
  DeviceDense& c = **c_or;
  if (absl::Status s = core::CheckGemmShapes({a.rows, a.cols}, {b.rows, b.cols}, {c.rows, c.cols});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  if (c.size() == 0) return absl::OkStatus();
  if (a.cols == 0) return ScaleRaw(beta, c.data.as<double>(), c.size());
  if (absl::Status s = CheckTileGrid(c.rows, c.cols, "c"); !s.ok()) return s;
  LaunchTiledProduct<false>(c.rows, c.cols, a.cols, alpha, a.data.as<double>(), b.data.as<double>(),
                            beta, c.data.as<double>(), handles_->stream());
  return LaunchStatus("TiledProductKernel (gemm)");
}

absl::StatusOr<double> CudaBackend::Dot(DenseId x_id, DenseId y_id) const {
  auto x = GetDense(x_id, "x");
  if (!x.ok()) return x.status();
  auto y = GetDense(y_id, "y");
  if (!y.ok()) return y.status();
  if ((*x)->rows != (*y)->rows || (*x)->cols != (*y)->cols) {
    return absl::InvalidArgumentError("x/y: shapes differ");
  }
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  if ((*x)->size() == 0) return 0.0;
  cudaStream_t stream = handles_->stream();
  double* partials = dot_scratch_.as<double>();
  DotPartialsKernel<<<kDotBlocks, kElementwiseThreads, 0, stream>>>(
      (*x)->data.as<double>(), (*y)->data.as<double>(), (*x)->size(), partials);
  if (absl::Status s = LaunchStatus("DotPartialsKernel"); !s.ok()) return s;
  SumPartialsKernel<<<1, kDotBlocks, 0, stream>>>(partials, partials + kDotBlocks);
  if (absl::Status s = LaunchStatus("SumPartialsKernel"); !s.ok()) return s;
  double result = 0.0;
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(&result, partials + kDotBlocks, sizeof(double),
                                                  cudaMemcpyDeviceToHost, stream));
  CONTACTSIM_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return result;
}

absl::Status CudaBackend::Axpy(double alpha, DenseId x_id, DenseId y_id) {
  auto x = GetDense(x_id, "x");
  if (!x.ok()) return x.status();
  auto y = GetDense(y_id, "y");
  if (!y.ok()) return y.status();
  if ((*x)->rows != (*y)->rows || (*x)->cols != (*y)->cols) {
    return absl::InvalidArgumentError("x/y: shapes differ");
  }
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  if ((*x)->size() == 0) return absl::OkStatus();
  const int64_t n = (*x)->size();
  AxpyKernel<<<ElementwiseBlocks(n), kElementwiseThreads, 0, handles_->stream()>>>(
      (*x)->data.as<double>(), (*y)->data.as<double>(), n, alpha);
  return LaunchStatus("AxpyKernel");
}

absl::Status CudaBackend::Scale(double alpha, DenseId x_id) {
  auto x = GetDense(x_id, "x");
  if (!x.ok()) return x.status();
  if (absl::Status s = MakeCurrent(); !s.ok()) return s;
  if ((*x)->size() == 0) return absl::OkStatus();
  // ScaleKernel, not ScaleRaw: alpha = 0 scales (NaN stays NaN), as the CPU's x *= alpha does.
  const int64_t n = (*x)->size();
  ScaleKernel<<<ElementwiseBlocks(n), kElementwiseThreads, 0, handles_->stream()>>>(
      (*x)->data.as<double>(), n, alpha);
  return LaunchStatus("ScaleKernel");
}

absl::Status CudaBackend::ForEachElementRange(int32_t num_elements,
                                              const core::ElementRangeKernel& kernel) {
  // The kernel is host code on host arrays: run it on the host, in the CPU backend's ranges.
  return core::RunElementRangesOnHost(num_elements, kernel);
}

absl::Status CudaUsable() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    return absl::FailedPreconditionError(absl::StrCat(
        "no usable CUDA device: ", cudaGetErrorName(error), " (", cudaGetErrorString(error), ")"));
  }
  if (count == 0) return absl::FailedPreconditionError("no usable CUDA device: none found");
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<core::Backend>> CreateCudaBackend(
    const CudaBackendOptions& options) {
  auto backend = CudaBackend::Create(options);
  if (!backend.ok()) return backend.status();
  return std::unique_ptr<core::Backend>(*std::move(backend));
}

}  // namespace contactsim::gpu
