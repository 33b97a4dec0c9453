// See libjxl_quiet.h.
#define _GNU_SOURCE
#include "libjxl_quiet.h"
#include "libjxl_functions.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static _Thread_local char kept_words[200];

static void keep(const char *format, va_list arguments) {
    if (kept_words[0] != 0) return;   // the first line names the cause; later ones are its consequences
    vsnprintf(kept_words, sizeof kept_words, format, arguments);
}

static int quiet_vfprintf_chk(FILE *stream, int flag, const char *format, va_list arguments) {
    (void)stream;
    (void)flag;
    keep(format, arguments);
    return 0;
}

static int quiet_fprintf_chk(FILE *stream, int flag, const char *format, ...) {
    (void)stream;
    (void)flag;
    va_list arguments;
    va_start(arguments, format);
    keep(format, arguments);
    va_end(arguments);
    return 0;
}

static int quiet_printf_chk(int flag, const char *format, ...) {
    (void)flag;
    va_list arguments;
    va_start(arguments, format);
    keep(format, arguments);
    va_end(arguments);
    return 0;
}

#if defined(__x86_64__)
#define SLOT_RELOCATION(type) ((type) == R_X86_64_JUMP_SLOT || (type) == R_X86_64_GLOB_DAT)
#elif defined(__aarch64__)
#define SLOT_RELOCATION(type) ((type) == R_AARCH64_JUMP_SLOT || (type) == R_AARCH64_GLOB_DAT)
#endif

#ifdef SLOT_RELOCATION
/// The replacement for an imported function libjxl prints with, or NULL.
static void *replacement(const char *name) {
    if (strcmp(name, "__vfprintf_chk") == 0) return (void *)quiet_vfprintf_chk;
    if (strcmp(name, "__fprintf_chk") == 0) return (void *)quiet_fprintf_chk;
    if (strcmp(name, "__printf_chk") == 0) return (void *)quiet_printf_chk;
    return NULL;
}

/// libjxl's read-only-after-relocation range (PT_GNU_RELRO), found by its load address.
typedef struct { ElfW(Addr) base, start, end; } relro_range;

static int find_relro(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    relro_range *range = data;
    if (info->dlpi_addr != range->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            range->start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            range->end = range->start + info->dlpi_phdr[i].p_memsz;
        }
    }
    return 1;
}

/// Writes `value` into the GOT slot at `slot`, lifting RELRO's protection for the write.
static void write_slot(void **slot, void *value, const relro_range *relro) {
    ElfW(Addr) address = (ElfW(Addr))slot;
    int protected = address >= relro->start && address < relro->end;
    long page_size = sysconf(_SC_PAGESIZE);
    void *page = (void *)(address & ~(ElfW(Addr))(page_size - 1));
    if (protected && mprotect(page, (size_t)page_size, PROT_READ | PROT_WRITE) != 0) return;
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    if (protected) mprotect(page, (size_t)page_size, PROT_READ);
}

/// Points libjxl's GOT slots of the printing functions at the replacements.
static void redirect_printing(struct link_map *map) {
    ElfW(Addr) base = map->l_addr;
    const ElfW(Sym) *symbols = NULL;
    const char *names = NULL;
    const ElfW(Rela) *tables[2] = { NULL, NULL };
    size_t sizes[2] = { 0, 0 };
    for (const ElfW(Dyn) *entry = map->l_ld; entry->d_tag != DT_NULL; entry++) {
        // glibc has already made the pointers of the dynamic section absolute; allow for both.
        ElfW(Addr) pointer = entry->d_un.d_ptr < base ? base + entry->d_un.d_ptr : entry->d_un.d_ptr;
        switch (entry->d_tag) {
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)pointer; break;
        case DT_STRTAB: names = (const char *)pointer; break;
        case DT_JMPREL: tables[0] = (const ElfW(Rela) *)pointer; break;
        case DT_PLTRELSZ: sizes[0] = entry->d_un.d_val; break;
        case DT_RELA: tables[1] = (const ElfW(Rela) *)pointer; break;
        case DT_RELASZ: sizes[1] = entry->d_un.d_val; break;
        default: break;
        }
    }
    if (symbols == NULL || names == NULL) return;
    relro_range relro = { .base = base };
    dl_iterate_phdr(find_relro, &relro);
    for (int table = 0; table < 2; table++) {
        if (tables[table] == NULL) continue;
        for (size_t i = 0; i < sizes[table] / sizeof(ElfW(Rela)); i++) {
            const ElfW(Rela) *relocation = &tables[table][i];
            if (!SLOT_RELOCATION(ELF64_R_TYPE(relocation->r_info))) continue;
            void *value = replacement(names + symbols[ELF64_R_SYM(relocation->r_info)].st_name);
            if (value != NULL) write_slot((void **)(base + relocation->r_offset), value, &relro);
        }
    }
}
#endif

static pthread_once_t quieted = PTHREAD_ONCE_INIT;

static void quiet_libjxl(void) {
#ifdef SLOT_RELOCATION
    struct link_map *map = NULL;
    if (dlinfo(libjxl_library.handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL) redirect_printing(map);
#endif
}

mb_status libjxl_load_quietly(void) {
    mb_status status = libjxl_library_load();
    if (status == MB_OK) pthread_once(&quieted, quiet_libjxl);
    return status;
}

void libjxl_words_clear(void) { kept_words[0] = 0; }

const char *libjxl_words(void) {
    const char *words = kept_words;
    const char *failure = strstr(words, "JXL_FAILURE: ");
    if (failure != NULL) {
        words = failure + strlen("JXL_FAILURE: ");
    } else {
        const char *prefix_end = strstr(words, ": ");   // "./lib/jxl/decode.cc:1182: "
        if (prefix_end != NULL && strstr(words, ".cc:") != NULL) words = prefix_end + 2;
    }
    static _Thread_local char line[sizeof kept_words];
    snprintf(line, sizeof line, "%s", words);
    line[strcspn(line, "\n")] = 0;
    return line;
}
