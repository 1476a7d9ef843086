// Lint fixture (never compiled): a client source that reaches into core. The lint must reject it.
#include "core/sim/world.h"
