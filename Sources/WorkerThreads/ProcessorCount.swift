import CProcessorAffinity
#if canImport(Glibc)
import Glibc
#endif

/// How many processors this process may run on: the CPUs of its affinity mask
/// (`sched_getaffinity`, which `taskset` and container runtimes set), else the online CPUs;
/// at least 1. The default of `--jobs`. (Foundation's `ProcessInfo` counts the same way; the
/// command does not link Foundation, issue #34.)
public enum ProcessorCount {
    public static var available: Int {
        let count = Int(mpa_affinity_processor_count())
        return count > 0 ? count : max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
