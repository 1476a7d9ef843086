// Fixture: the same file-local helper as good_a.cc (the two cannot be checked as one unit), and
// one variable named against the rules.
namespace {
int HelperValue() { return 2; }
}  // namespace

int ClashSum() {
  int BadVariable = HelperValue();
  return BadVariable;
}
