/* The Windows side of `layertax windows bundle`: runs Pietrek's experiments on Windows (or
 * under Wine) and writes layertax's result JSON (schema layertax/1) with every raw sample.
 *
 * No C runtime: kernel32 and ntdll only, so the bundle runs on any Windows without
 * installing anything, and the runner's own start-up stays out of the way. The C
 * runtime's rename() is measured by loading msvcrt.dll at run time (it is the layer the
 * 2008 blog timed), not by linking it.
 *
 * It reads manifest.txt (written by layertax; one tab-separated directive per line):
 *   version V | runs N | warmup N | min_ns N | seed N
 *   meta EXPERIMENT FILE        the experiment's fixed fields, a JSON object, copied in
 *   launch NAME EXE LAYER       a launch case (EXE relative to the bundle)
 *   probe NAME EXE LAYER        the stale-bound probe: exit 0 = bindings ignored
 *   loadlib NAME DIR N LAYER    LoadLibrary + FreeLibrary of DIR\lt0.dll .. lt{N-1}.dll
 *   kernel EXPERIMENT NAME LAYER   an in-process kernel, by name (see KERNELS)
 * and writes results.json in the current directory (through a temporary file and a rename,
 * so an interrupted run leaves no half-written result).
 *
 * Launches: per round every launch case once, in a shuffled order; CreateProcessW with the
 * child's standard output on a fresh pipe; QueryPerformanceCounter just before the call and
 * after WaitForSingleObject; the child writes its own QueryPerformanceCounter reading (the
 * first act of its entry point) into the pipe: spawn->entry and spawn->exit.
 */
#include <windows.h>
#include <winternl.h>
#include <cpuid.h>

typedef unsigned long long u64;
typedef long long i64;

/* ---- small helpers (no C runtime) ---------------------------------------------------- */

static u64 qpc_hz;

static u64 qpc(void)
{
    LARGE_INTEGER t;
    QueryPerformanceCounter(&t);
    return (u64)t.QuadPart;
}

static u64 ticks_to_ns(u64 ticks)
{
    return ticks / qpc_hz * 1000000000ull + ticks % qpc_hz * 1000000000ull / qpc_hz;
}

static int str_eq(const char *a, const char *b)
{
    while (*a && *a == *b) { a++; b++; }
    return *a == *b;
}

static int str_len(const char *s)
{
    int n = 0;
    while (s[n]) n++;
    return n;
}

static u64 parse_u64(const char *s)
{
    u64 v = 0;
    while (*s >= '0' && *s <= '9') v = v * 10 + (u64)(*s++ - '0');
    return v;
}

static u64 rng_state = 88172645463325252ull;

static u64 rng(void)   /* xorshift64: the shuffles, seeded and recorded */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void die(const char *why);

/* ---- the output: a buffered writer and JSON values ------------------------------------ */

static HANDLE out_file;
static char out_buf[1 << 16];
static int out_len;

static void flush_out(void)
{
    DWORD written;
    if (out_len && (!WriteFile(out_file, out_buf, (DWORD)out_len, &written, NULL) || written != (DWORD)out_len))
        die("cannot write the result file");
    out_len = 0;
}

static void put_bytes(const char *s, int n)
{
    for (int i = 0; i < n; i++) {
        if (out_len == (int)sizeof out_buf) flush_out();
        out_buf[out_len++] = s[i];
    }
}

static void put(const char *s) { put_bytes(s, str_len(s)); }

static void put_u64(u64 v)
{
    char digits[24];
    int n = 0;
    do { digits[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) put_bytes(&digits[--n], 1);
}

static void put_i64(i64 v)
{
    if (v < 0) { put("-"); put_u64((u64)(-v)); } else put_u64((u64)v);
}

static void put_hex(u64 v, int digits)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; i--) put_bytes(&hex[(v >> (4 * i)) & 15], 1);
}

static void put_str(const char *s)   /* a JSON string from UTF-8 text */
{
    put("\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { put("\\"); put_bytes(s, 1); }
        else if (c < 0x20) { put("\\u00"); put_hex(c, 2); }
        else put_bytes(s, 1);
    }
    put("\"");
}

/* ---- errors ----------------------------------------------------------------------------- */

static void say(const char *s)
{
    DWORD written;
    WriteFile(GetStdHandle(STD_ERROR_HANDLE), s, (DWORD)str_len(s), &written, NULL);
}

static void die(const char *why)
{
    say("runner: error: ");
    say(why);
    say("\r\n");
    ExitProcess(2);
}

/* ---- the manifest ----------------------------------------------------------------------- */

#define MAX_CASES 64
#define MAX_FIELDS 6

enum kind { LAUNCH, PROBE, LOADLIB, KERNEL };

struct sample { u64 a, b; int status; };   /* launch: main ns, exit ns; kernel: iters, ns */

struct kase {
    enum kind kind;
    const char *experiment, *name, *path, *layer;
    int libs;                 /* LOADLIB: DLLs in the set */
    u64 iters;                /* KERNEL: calibrated iterations per sample */
    int failed;               /* a failure stops the case; the reason is kept */
    const char *reason;
    char why[112];            /* a reason with the Windows error code appended (fail_with_error) */
    struct sample *samples;
    int n;
    u64 bases[64];            /* LOADLIB: the base each DLL got, first round (the loader's view) */
    int got_bases;
};

static struct kase cases[MAX_CASES];
static int n_cases;
static const char *metas[16][2];   /* experiment, file */
static int n_metas;
static u64 runs = 30, warmup = 1, min_ns = 5000000, seed;
static const char *version = "?";

static char *read_all(const wchar_t *path)
{
    HANDLE f = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    if (f == INVALID_HANDLE_VALUE) return NULL;
    DWORD size = GetFileSize(f, NULL), got;
    char *text = HeapAlloc(GetProcessHeap(), 0, size + 1);
    if (!text || !ReadFile(f, text, size, &got, NULL) || got != size) die("cannot read a bundle file");
    CloseHandle(f);
    text[size] = 0;
    return text;
}

static wchar_t *widen(const char *s)
{
    static wchar_t buffers[8][MAX_PATH * 2];
    static int next;
    wchar_t *w = buffers[next++ % 8];
    if (!MultiByteToWideChar(CP_UTF8, 0, s, -1, w, MAX_PATH * 2)) die("a path too long");
    return w;
}

static void read_manifest(void)
{
    char *text = read_all(L"manifest.txt");
    if (!text) die("no manifest.txt here: run run.cmd from the bundle's directory");
    char *line = text;
    while (*line) {
        char *field[MAX_FIELDS] = {0};
        int nf = 0;
        char *p = line;
        field[nf++] = p;
        for (; *p && *p != '\n'; p++) {
            if (*p == '\t' && nf < MAX_FIELDS) { *p = 0; field[nf++] = p + 1; }
            else if (*p == '\r') *p = 0;
        }
        char *next = *p ? p + 1 : p;
        *p = 0;
        const char *key = field[0];
        if (str_eq(key, "version") && nf > 1) version = field[1];
        else if (str_eq(key, "runs") && nf > 1) runs = parse_u64(field[1]);
        else if (str_eq(key, "warmup") && nf > 1) warmup = parse_u64(field[1]);
        else if (str_eq(key, "min_ns") && nf > 1) min_ns = parse_u64(field[1]);
        else if (str_eq(key, "seed") && nf > 1) seed = parse_u64(field[1]);
        else if (str_eq(key, "meta") && nf > 2 && n_metas < 16) {
            metas[n_metas][0] = field[1];
            metas[n_metas++][1] = field[2];
        } else if ((str_eq(key, "launch") || str_eq(key, "probe")) && nf > 3 && n_cases < MAX_CASES) {
            struct kase *c = &cases[n_cases++];
            c->kind = str_eq(key, "launch") ? LAUNCH : PROBE;
            c->experiment = "loadtime-pe";
            c->name = field[1]; c->path = field[2]; c->layer = field[3];
        } else if (str_eq(key, "loadlib") && nf > 4 && n_cases < MAX_CASES) {
            struct kase *c = &cases[n_cases++];
            c->kind = LOADLIB;
            c->experiment = "loadlibrary-pe";
            c->name = field[1]; c->path = field[2]; c->libs = (int)parse_u64(field[3]); c->layer = field[4];
            if (c->libs > 64) c->libs = 64;
        } else if (str_eq(key, "kernel") && nf > 3 && n_cases < MAX_CASES) {
            struct kase *c = &cases[n_cases++];
            c->kind = KERNEL;
            c->experiment = field[1]; c->name = field[2]; c->layer = field[3];
        }
        line = next;
    }
    if (!n_cases) die("the manifest names no case");
}

/* ---- launches ------------------------------------------------------------------------- */

/* Stops the case with `text` and GetLastError()'s code, so a failure names its cause: one launch
 * under Wine failed once in many test runs with no code kept to tell why. */
static void fail_with_error(struct kase *c, const char *text)
{
    DWORD error = GetLastError();
    int n = 0, room = (int)sizeof c->why - 30;   /* the tail: 16 + 10 digits + ")" + NUL */
    for (; text[n] && n < room; n++) c->why[n] = text[n];
    const char *tail = " (Windows error ";
    for (int i = 0; tail[i]; i++) c->why[n++] = tail[i];
    char digits[12];
    int d = 0;
    do { digits[d++] = (char)('0' + error % 10); error /= 10; } while (error && d < 11);
    while (d) c->why[n++] = digits[--d];
    c->why[n++] = ')';
    c->why[n] = 0;
    c->failed = 1;
    c->reason = c->why;
}

static void launch_once(struct kase *c, struct sample *s)
{
    SECURITY_ATTRIBUTES inherit = { sizeof inherit, NULL, TRUE };
    HANDLE r, w;
    if (!CreatePipe(&r, &w, &inherit, 0)) die("CreatePipe failed");
    SetHandleInformation(r, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOW si;
    PROCESS_INFORMATION pi;
    for (unsigned i = 0; i < sizeof si; i++) ((char *)&si)[i] = 0;
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdOutput = w;
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    static wchar_t cmdline[MAX_PATH * 2 + 4];
    wchar_t *exe = widen(c->path);
    int n = 0;
    cmdline[n++] = L'"';
    for (int i = 0; exe[i] && n < MAX_PATH * 2; i++) cmdline[n++] = exe[i];
    cmdline[n++] = L'"';
    cmdline[n] = 0;
    /* Under Wine, CreateProcess now and then fails with ERROR_INTERNAL_ERROR before the program
     * runs (twice over the test suite's runs, on two different variants that started at every
     * other launch): a fault of the process start, not of the program. It is tried again, up to
     * twice, the clock restarted each time, so a failed start is in no figure; any other error,
     * or a third failure, stops the case. */
    u64 t0;
    BOOL ok = FALSE;
    for (int attempt = 0; attempt < 3 && !ok; attempt++) {
        t0 = qpc();
        ok = CreateProcessW(exe, cmdline, NULL, NULL, TRUE, HIGH_PRIORITY_CLASS, NULL, NULL, &si, &pi);
        if (!ok && GetLastError() != ERROR_INTERNAL_ERROR) break;
    }
    if (!ok) {
        fail_with_error(c, "CreateProcess failed (a DLL missing, or not a valid image here)");
        CloseHandle(r); CloseHandle(w);
        return;
    }
    DWORD waited = WaitForSingleObject(pi.hProcess, 30000);
    u64 t1 = qpc();
    CloseHandle(w);
    DWORD code = 0;
    if (waited != WAIT_OBJECT_0) {
        TerminateProcess(pi.hProcess, 1);
        WaitForSingleObject(pi.hProcess, INFINITE);
        c->failed = 1; c->reason = "timed out after 30 s";
    }
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hThread); CloseHandle(pi.hProcess);
    u64 stamp = 0;
    DWORD got = 0;
    ReadFile(r, &stamp, sizeof stamp, &got, NULL);
    CloseHandle(r);
    s->status = (int)code;
    s->a = got == sizeof stamp && stamp >= t0 ? ticks_to_ns(stamp - t0) : 0;
    s->b = ticks_to_ns(t1 - t0);
    if (c->kind == LAUNCH && code != 0 && !c->failed) {
        c->failed = 1;
        c->reason = code == 3 ? "exit code 3: the sum over all calls is wrong (a binding or relocation is wrong)"
                              : "a non-zero exit code (see the samples' exit_status)";
    }
}

/* ---- LoadLibrary of a DLL set ------------------------------------------------------------ */

static void loadlib_once(struct kase *c, struct sample *s)
{
    static wchar_t paths[64][MAX_PATH];
    HMODULE mods[64];
    wchar_t *dir = widen(c->path);
    for (int i = 0; i < c->libs; i++) {    /* the names are made before the clock starts */
        int n = 0;
        for (int j = 0; dir[j] && n < MAX_PATH - 16; j++) paths[i][n++] = dir[j];
        const wchar_t *tail = L"\\lt";
        for (int j = 0; tail[j]; j++) paths[i][n++] = tail[j];
        wchar_t digits[8];
        int d = 0, v = i;
        do { digits[d++] = (wchar_t)(L'0' + v % 10); v /= 10; } while (v);
        while (d) paths[i][n++] = digits[--d];
        const wchar_t *ext = L".dll";
        for (int j = 0; ext[j]; j++) paths[i][n++] = ext[j];
        paths[i][n] = 0;
    }
    u64 t0 = qpc();
    for (int i = 0; i < c->libs; i++)
        mods[i] = LoadLibraryExW(paths[i], NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    u64 t1 = qpc();
    for (int i = 0; i < c->libs; i++) {
        if (!mods[i]) { fail_with_error(c, "LoadLibrary failed"); continue; }
        if (!c->got_bases) c->bases[i] = (u64)mods[i];
    }
    c->got_bases = 1;
    for (int i = c->libs - 1; i >= 0; i--)
        if (mods[i]) FreeLibrary(mods[i]);
    u64 t2 = qpc();
    s->a = ticks_to_ns(t1 - t0);   /* load */
    s->b = ticks_to_ns(t2 - t0);   /* load + free */
}

/* ---- in-process kernels: the 1997 A-vs-W benchmark and the 2008 rename chain ------------- */

static wchar_t tmp_dir[MAX_PATH], path_a[MAX_PATH], path_b[MAX_PATH];
static char path_a8[MAX_PATH * 3], path_b8[MAX_PATH * 3];
static wchar_t nt_a[MAX_PATH + 8], nt_b[MAX_PATH + 8];
static int (*crt_rename)(const char *, const char *);

typedef NTSTATUS (NTAPI *nt_open_file_fn)(PHANDLE, ACCESS_MASK, POBJECT_ATTRIBUTES, PIO_STATUS_BLOCK, ULONG, ULONG);
typedef NTSTATUS (NTAPI *nt_set_information_file_fn)(HANDLE, PIO_STATUS_BLOCK, PVOID, ULONG, ULONG);
static nt_open_file_fn nt_open_file;
static nt_set_information_file_fn nt_set_information_file;

#define FILE_RENAME_INFORMATION_CLASS 10
struct rename_info {   /* FILE_RENAME_INFORMATION with room for the name */
    BOOLEAN replace;
    HANDLE root;
    ULONG length;
    WCHAR name[MAX_PATH + 8];
};

static void append(wchar_t *to, const wchar_t *from)
{
    while (*to) to++;
    while ((*to++ = *from++)) {}
}

static void make_files(void)
{
    wchar_t base[MAX_PATH];
    if (!GetTempPathW(MAX_PATH - 40, base)) die("GetTempPath failed");
    for (u64 attempt = 0; ; attempt++) {
        tmp_dir[0] = 0;
        append(tmp_dir, base);
        append(tmp_dir, L"layertax-");
        wchar_t tag[20];
        u64 v = (GetCurrentProcessId() * 1000003ull + attempt) % 100000000ull;
        int n = 0;
        do { tag[n++] = (wchar_t)(L'0' + v % 10); v /= 10; } while (v);
        tag[n] = 0;
        append(tmp_dir, tag);
        if (CreateDirectoryW(tmp_dir, NULL)) break;
        if (attempt > 100) die("cannot create a private temporary directory");
    }
    path_a[0] = path_b[0] = 0;
    append(path_a, tmp_dir); append(path_a, L"\\a");
    append(path_b, tmp_dir); append(path_b, L"\\b");
    nt_a[0] = nt_b[0] = 0;
    append(nt_a, L"\\??\\"); append(nt_a, path_a);
    append(nt_b, L"\\??\\"); append(nt_b, path_b);
    WideCharToMultiByte(CP_ACP, 0, path_a, -1, path_a8, sizeof path_a8, NULL, NULL);
    WideCharToMultiByte(CP_ACP, 0, path_b, -1, path_b8, sizeof path_b8, NULL, NULL);
    HANDLE f = CreateFileW(path_a, GENERIC_WRITE, 0, NULL, CREATE_NEW, 0, NULL);
    if (f == INVALID_HANDLE_VALUE) die("cannot create the file to rename");
    DWORD written;
    WriteFile(f, "layertax", 8, &written, NULL);
    CloseHandle(f);
    HMODULE msvcrt = LoadLibraryA("msvcrt.dll");
    crt_rename = msvcrt ? (void *)GetProcAddress(msvcrt, "rename") : NULL;
    HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    nt_open_file = (nt_open_file_fn)(void *)GetProcAddress(ntdll, "NtOpenFile");
    nt_set_information_file = (nt_set_information_file_fn)(void *)GetProcAddress(ntdll, "NtSetInformationFile");
}

static void remove_files(void)
{
    if (!tmp_dir[0]) return;
    DeleteFileW(path_a);
    DeleteFileW(path_b);
    RemoveDirectoryW(tmp_dir);
}

static int nt_rename(const wchar_t *from, const wchar_t *to)
{
    UNICODE_STRING name;
    name.Buffer = (PWSTR)from;
    name.Length = 0;
    while (from[name.Length / 2]) name.Length += 2;
    name.MaximumLength = name.Length + 2;
    OBJECT_ATTRIBUTES oa = {0};
    oa.Length = sizeof oa;
    oa.ObjectName = &name;
    oa.Attributes = OBJ_CASE_INSENSITIVE;
    IO_STATUS_BLOCK io;
    HANDLE h;
    if (nt_open_file(&h, DELETE | SYNCHRONIZE, &oa, &io, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                     0x20 /* FILE_SYNCHRONOUS_IO_NONALERT */) < 0)
        return 0;
    static struct rename_info info;
    info.replace = FALSE;
    info.root = NULL;
    info.length = 0;
    for (int i = 0; to[i]; i++) { info.name[i] = to[i]; info.length += 2; }
    NTSTATUS st = nt_set_information_file(h, &io, &info, sizeof info, FILE_RENAME_INFORMATION_CLASS);
    CloseHandle(h);
    return st >= 0;
}

/* One operation of a kernel, repeated `iters` times; returns operations done (0 = it failed). */
static u64 run_kernel(const char *name, u64 iters)
{
    static char buf8[MAX_PATH * 3];
    static wchar_t bufw[MAX_PATH];
    if (str_eq(name, "ansi") || str_eq(name, "unicode")) {
        int ansi = name[0] == 'a';
        u64 total = 0;
        for (u64 i = 0; i < iters; i++) {   /* Pietrek's loop: the three calls */
            HMODULE k = ansi ? GetModuleHandleA("KERNEL32.DLL") : GetModuleHandleW(L"KERNEL32.DLL");
            DWORD n1 = ansi ? GetModuleFileNameA(NULL, buf8, sizeof buf8) : GetModuleFileNameW(NULL, bufw, MAX_PATH);
            DWORD n2 = ansi ? GetCurrentDirectoryA(sizeof buf8, buf8) : GetCurrentDirectoryW(MAX_PATH, bufw);
            if (!k || !n1 || !n2) return 0;
            total += n1 + n2;
        }
        return total ? iters : 0;
    }
    if (str_eq(name, "SetEnvironmentVariableA") || str_eq(name, "SetEnvironmentVariableW")) {
        int ansi = name[22] == 'A';
        for (u64 i = 0; i < iters; i++) {
            BOOL ok = ansi ? SetEnvironmentVariableA("LAYERTAX_PROBE", "C:\\layertax\\shim")
                           : SetEnvironmentVariableW(L"LAYERTAX_PROBE", L"C:\\layertax\\shim");
            if (!ok) return 0;
        }
        static const wchar_t want[] = L"C:\\layertax\\shim";
        DWORD n = GetEnvironmentVariableW(L"LAYERTAX_PROBE", bufw, MAX_PATH);   /* verify: it was set */
        if (n != sizeof want / sizeof want[0] - 1) return 0;
        for (DWORD i = 0; i < n; i++)
            if (bufw[i] != want[i]) return 0;
        return iters;
    }
    /* The rename chain: a -> b -> a per iteration, two operations; the file checked afterwards. */
    for (u64 i = 0; i < iters; i++) {
        int ok;
        if (str_eq(name, "rename (CRT)"))
            ok = crt_rename && crt_rename(path_a8, path_b8) == 0 && crt_rename(path_b8, path_a8) == 0;
        else if (str_eq(name, "MoveFileA"))
            ok = MoveFileA(path_a8, path_b8) && MoveFileA(path_b8, path_a8);
        else if (str_eq(name, "MoveFileWithProgressW"))
            ok = MoveFileWithProgressW(path_a, path_b, NULL, NULL, 0) && MoveFileWithProgressW(path_b, path_a, NULL, NULL, 0);
        else if (str_eq(name, "NtSetInformationFile"))
            ok = nt_open_file && nt_rename(nt_a, nt_b) && nt_rename(nt_b, nt_a);
        else
            return 0;
        if (!ok) return 0;
    }
    DWORD a = GetFileAttributesW(path_a), b = GetFileAttributesW(path_b);
    return a != INVALID_FILE_ATTRIBUTES && b == INVALID_FILE_ATTRIBUTES ? 2 * iters : 0;
}

static void calibrate(struct kase *c)
{
    u64 iters = 1;
    for (;;) {
        Sleep(0);
        u64 t0 = qpc();
        u64 ops = run_kernel(c->name, iters);
        u64 ns = ticks_to_ns(qpc() - t0);
        if (!ops) { c->failed = 1; c->reason = "the kernel's result was wrong, or the API is missing here"; return; }
        if (ns >= min_ns || iters >= (1ull << 40)) break;
        u64 grow = ns ? min_ns * 12 / 10 * iters / ns : iters * 10;
        iters = grow > iters * 10 ? iters * 10 : (grow > iters ? grow : iters * 2);
    }
    c->iters = iters;
}

static void kernel_once(struct kase *c, struct sample *s)
{
    Sleep(0);   /* as Pietrek did: start each loop on a fresh time slice */
    u64 t0 = qpc();
    u64 ops = run_kernel(c->name, c->iters);
    u64 t1 = qpc();
    if (!ops) { c->failed = 1; c->reason = "the kernel's result was wrong"; return; }
    s->a = ops;
    s->b = ticks_to_ns(t1 - t0);
}

/* ---- the machine, from Windows' own APIs ------------------------------------------------ */

static void put_machine(void)
{
    OSVERSIONINFOW v;
    v.dwOSVersionInfoSize = sizeof v;
    NTSTATUS (NTAPI *get_version)(OSVERSIONINFOW *) = (void *)GetProcAddress(GetModuleHandleA("ntdll.dll"), "RtlGetVersion");
    if (!get_version || get_version(&v) < 0) v.dwMajorVersion = v.dwMinorVersion = v.dwBuildNumber = 0;
    const char *(CDECL *wine_version)(void) = (void *)GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version");
    unsigned regs[4];
    char brand[49] = {0};
    for (unsigned leaf = 0; leaf < 3; leaf++) {
        __cpuid(0x80000002 + leaf, regs[0], regs[1], regs[2], regs[3]);
        for (int i = 0; i < 16; i++) brand[leaf * 16 + i] = ((char *)regs)[i];
    }
    char *b = brand;
    while (*b == ' ') b++;
    SYSTEM_INFO si;
    GetNativeSystemInfo(&si);
    MEMORYSTATUSEX mem;
    mem.dwLength = sizeof mem;
    GlobalMemoryStatusEx(&mem);
    char host[MAX_COMPUTERNAME_LENGTH + 1];
    DWORD hn = sizeof host;
    if (!GetComputerNameA(host, &hn)) host[0] = 0;
    u64 h = 14695981039346656037ull;   /* FNV-1a: the host's name is not written, only a hash */
    for (char *p = host; *p; p++) { h ^= (unsigned char)*p; h *= 1099511628211ull; }
    put("{\"platform\": \"windows\", \"os\": \"Windows ");
    put_u64(v.dwMajorVersion); put("."); put_u64(v.dwMinorVersion); put("."); put_u64(v.dwBuildNumber);
    if (wine_version) { put(" under Wine "); put(wine_version()); }
    put("\", \"kernel\": \"NT "); put_u64(v.dwMajorVersion); put("."); put_u64(v.dwMinorVersion); put(".");
    put_u64(v.dwBuildNumber); put("\", \"wine\": ");
    if (wine_version) put_str(wine_version()); else put("null");
    put(", \"cpu_model\": "); put_str(b);
    put(", \"arch\": \"x86_64\", \"cores\": "); put_u64(si.dwNumberOfProcessors);
    put(", \"memory_gib\": "); put_u64(mem.ullTotalPhys >> 30);
    put(", \"hostname_hash\": \"fnv1a:"); put_hex(h, 16);
    put("\", \"libc\": \"no C runtime (kernel32; msvcrt.dll loaded for rename)\", \"timer\": \"QueryPerformanceCounter\", \"timer_hz\": "); put_u64(qpc_hz);
    put(", \"tools\": {}}");
}

/* ---- the result ------------------------------------------------------------------------- */

static void put_case(struct kase *c)
{
    put("{\"name\": "); put_str(c->name);
    put(", \"kernel\": "); put_str(c->kind == KERNEL ? "in-process" : c->kind == LOADLIB ? "LoadLibrary" : "launch");
    put(", \"layer\": "); put_str(c->layer);
    put(", \"language\": \"c\", \"group\": \"\", \"status\": ");
    put_str(c->failed ? "failed" : "ok");
    put(", \"reason\": ");
    if (c->failed) put_str(c->reason); else put("null");
    if (c->kind == PROBE && c->n) {
        int ignored = 0;
        for (int i = 0; i < c->n; i++) ignored += c->samples[i].status == 0;
        put(", \"probe\": ");
        put_str(ignored == c->n ? "bindings ignored: the loader resolved every import again"
                : ignored == 0 ? "bindings honoured: the loader trusted the stale addresses"
                : "mixed: some launches honoured the bindings, some did not");
    }
    if (c->kind == LOADLIB && c->got_bases) {
        put(", \"loader_view\": {\"bases\": [");
        for (int i = 0; i < c->libs; i++) { if (i) put(", "); put_u64(c->bases[i]); }
        put("]}");
    }
    put(", \"samples\": [");
    for (int i = 0; i < c->n; i++) {
        struct sample *s = &c->samples[i];
        put(i ? ",\n  {\"round\": " : "\n  {\"round\": "); put_u64((u64)i);
        if (c->kind == KERNEL) {
            put(", \"iters\": "); put_u64(c->iters); put(", \"ops\": "); put_u64(s->a);
            put(", \"ns\": "); put_u64(s->b);
        } else if (c->kind == LOADLIB) {
            put(", \"iters\": 1, \"ops\": 1, \"ns\": "); put_u64(s->a); put(", \"load_free_ns\": "); put_u64(s->b);
        } else {
            put(", \"main_ns\": "); if (s->a) put_u64(s->a); else put("null");
            put(", \"exit_ns\": "); put_u64(s->b);
            put(", \"exit_status\": "); put_i64(s->status);
        }
        put("}");
    }
    put("]}");
}

static void put_document(void)
{
    SYSTEMTIME t;
    GetSystemTime(&t);
    static char created[32];
    int n = 0;
    const unsigned short parts[6] = { t.wYear, t.wMonth, t.wDay, t.wHour, t.wMinute, t.wSecond };
    const char seps[6] = { '-', '-', 'T', ':', ':', 0 };
    for (int i = 0; i < 6; i++) {
        unsigned v = parts[i];
        int width = i ? 2 : 4;
        for (int d = width - 1; d >= 0; d--) { created[n + d] = (char)('0' + v % 10); v /= 10; }
        n += width;
        if (seps[i]) created[n++] = seps[i];
    }
    created[n] = 0;
    put("{\"schema\": \"layertax/1\", \"layertax_version\": "); put_str(version);
    put(", \"created\": \""); put(created); put("+00:00\", \"command\": [\"run.cmd\"], \"complete\": true");
    put(", \"producer\": \"layertax windows runner\"");
    put(", \"settings\": {\"runs\": "); put_u64(runs); put(", \"warmup\": "); put_u64(warmup);
    put(", \"min_sample_ns\": "); put_u64(min_ns); put(", \"seed\": "); put_u64(seed);
    put(", \"metric\": \"time\", \"burst\": 1, \"method\": \"");
    put_u64(runs); put(" rounds after "); put_u64(warmup);
    put(" warm-up, every case once a round in a shuffled order (seed "); put_u64(seed);
    put("); launches: CreateProcessW to the child's QueryPerformanceCounter stamp at its entry point; kernels: "
        "samples >= "); put_u64(min_ns / 1000000); put(" ms; QueryPerformanceCounter at ");
    put_u64(qpc_hz); put(" Hz\"}, \"machine\": ");
    put_machine();
    put(", \"experiments\": [");
    for (int m = 0; m < n_metas; m++) {
        char *meta = read_all(widen(metas[m][1]));
        if (!meta) die("a meta file of the manifest is missing");
        int end = str_len(meta);
        while (end > 0 && meta[end - 1] != '}') end--;
        put(m ? ",\n" : "\n");
        put_bytes(meta, end - 1);   /* the object without its closing brace; the cases follow */
        put(", \"cases\": [");
        int first = 1;
        for (int i = 0; i < n_cases; i++) {
            if (!str_eq(cases[i].experiment, metas[m][0])) continue;
            put(first ? "\n " : ",\n ");
            first = 0;
            put_case(&cases[i]);
        }
        put("]}");
    }
    put("]}\n");
}

/* ---- the rounds ---------------------------------------------------------------------------- */

static void one(struct kase *c, struct sample *s)
{
    if (c->kind == LAUNCH || c->kind == PROBE) launch_once(c, s);
    else if (c->kind == LOADLIB) loadlib_once(c, s);
    else kernel_once(c, s);
}

static u64 command_line_runs(void)   /* run.cmd passes its first argument on: a number of rounds */
{
    const wchar_t *p = GetCommandLineW();
    if (*p == L'"') { p++; while (*p && *p != L'"') p++; if (*p) p++; }
    else while (*p && *p != L' ' && *p != L'\t') p++;
    while (*p == L' ' || *p == L'\t') p++;
    u64 v = 0;
    while (*p >= L'0' && *p <= L'9') v = v * 10 + (u64)(*p++ - L'0');
    return v;
}

void Start(void)
{
    LARGE_INTEGER hz;
    QueryPerformanceFrequency(&hz);
    qpc_hz = (u64)hz.QuadPart;
    /* A crash of a probe must not stop the run on a dialog box (children inherit the mode). */
    SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
    read_manifest();
    u64 asked = command_line_runs();
    if (asked) runs = asked;
    if (runs < 1 || runs > 100000) die("runs must be between 1 and 100000");
    if (!seed) seed = qpc() | 1;
    rng_state = seed;
    SetPriorityClass(GetCurrentProcess(), HIGH_PRIORITY_CLASS);
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL);   /* as Pietrek ran his loops */
    make_files();
    for (int i = 0; i < n_cases; i++) {
        cases[i].samples = HeapAlloc(GetProcessHeap(), HEAP_ZERO_MEMORY, sizeof(struct sample) * runs);
        if (!cases[i].samples) die("out of memory");
        if (cases[i].kind == KERNEL) calibrate(&cases[i]);
    }
    int order[MAX_CASES];
    say("runner: ");
    for (u64 round = 0; round < warmup + runs; round++) {
        for (int i = 0; i < n_cases; i++) order[i] = i;
        for (int i = n_cases - 1; i > 0; i--) {   /* Fisher-Yates */
            int j = (int)(rng() % (u64)(i + 1)), t = order[i];
            order[i] = order[j]; order[j] = t;
        }
        for (int k = 0; k < n_cases; k++) {
            struct kase *c = &cases[order[k]];
            if (c->failed) continue;
            struct sample scratch, *s = round < warmup ? &scratch : &c->samples[c->n];
            one(c, s);
            if (round >= warmup && !c->failed) c->n++;
        }
        if ((round + 1) % 10 == 0) say(".");
    }
    say("\r\n");
    remove_files();
    out_file = CreateFileW(L"results.json.tmp", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (out_file == INVALID_HANDLE_VALUE) die("cannot create results.json.tmp here");
    put_document();
    flush_out();
    CloseHandle(out_file);
    if (!MoveFileExW(L"results.json.tmp", L"results.json", MOVEFILE_REPLACE_EXISTING)) die("cannot rename to results.json");
    say("runner: wrote results.json\r\n");
    ExitProcess(0);
}
