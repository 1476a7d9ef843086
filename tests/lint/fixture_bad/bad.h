// Fixture for the lint test: this include must be rejected.
#include <grpcpp/grpcpp.h>
