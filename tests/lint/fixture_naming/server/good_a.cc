// Fixture for lint.naming_catches_violations: names that follow .clang-tidy.
namespace {
int HelperValue() { return 1; }
}  // namespace

int GoodSum(int first_value) { return first_value + HelperValue(); }
