// An empty program: see the ttm_<layer>_alone targets in CMakeLists.txt.
int main() {
  return 0;
}
