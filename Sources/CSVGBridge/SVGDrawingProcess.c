// librsvg in a child process with a deadline (see SVGDrawingProcess.h).
#define _GNU_SOURCE
#include "SVGDrawingProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MSVG_SANITIZED 1
#endif
#endif
#ifndef MSVG_SANITIZED
#define MSVG_SANITIZED 0
#endif

extern char **environ;

/// What the parent sends, followed by `count` bytes of SVG.
typedef struct {
    uint64_t count;
    uint64_t memory_bytes;
    double natural_width, natural_height;
    uint32_t width, height;
} draw_request;

/// What the child answers, followed by width × height × 4 bytes of rows when `status` is MB_OK.
typedef struct {
    int32_t status;
    msvg_intrinsic intrinsic;
    mb_message message;
} draw_reply;

// MARK: the child

/// Reads exactly `count` bytes from a blocking descriptor: 0 at its end or on an error.
static int read_exactly(int fd, void *buffer, size_t count) {
    uint8_t *at = buffer;
    while (count > 0) {
        ssize_t got = read(fd, at, count);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        at += got;
        count -= (size_t)got;
    }
    return 1;
}

static int write_exactly(int fd, const void *buffer, size_t count) {
    const uint8_t *at = buffer;
    while (count > 0) {
        ssize_t put = write(fd, at, count);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return 0;
        at += put;
        count -= (size_t)put;
    }
    return 1;
}

/// One request: loads and draws under the request's address-space bound; the reply's status
/// and words are the document's. Returns the rows (malloc'ed) when drawn, else NULL.
static uint8_t *draw(const draw_request *request, const uint8_t *bytes, draw_reply *reply) {
    struct rlimit bound;
    // A sanitizer's shadow memory already holds terabytes of address space, so under one (the CI's
    // ASan suite) the bound would refuse every allocation: the deadline alone bounds the drawing.
    if (!MSVG_SANITIZED && getrlimit(RLIMIT_AS, &bound) == 0) {
        bound.rlim_cur = request->memory_bytes < bound.rlim_max ? request->memory_bytes : bound.rlim_max;
        setrlimit(RLIMIT_AS, &bound);
    }
    const char *failure = msvg_library_failure();
    if (failure != NULL) {
        reply->status = MB_UNSUPPORTED;
        mb_message_set(&reply->message, "librsvg is not available: %s", failure);
        return NULL;
    }
    msvg_document *document = msvg_document_create();
    if (document == NULL) {
        reply->status = MB_LIMIT;
        mb_message_set(&reply->message, "out of memory");
        return NULL;
    }
    uint8_t *rows = NULL;
    reply->status = msvg_document_load(document, bytes, (size_t)request->count, &reply->intrinsic);
    if (reply->status == MB_OK) {
        rows = malloc((size_t)request->width * request->height * 4);
        if (rows == NULL) {
            reply->status = MB_LIMIT;
            mb_message_set(&reply->message, "out of memory for %u×%u rows", request->width, request->height);
        } else {
            reply->status = msvg_document_render(document, request->natural_width, request->natural_height,
                                                 request->width, request->height, rows);
        }
    }
    if (reply->status != MB_OK) {
        reply->message = *msvg_document_message(document);
        free(rows);
        rows = NULL;
    }
    msvg_document_destroy(document);
    return rows;
}

int msvg_process_serve(void) {
    // Dies with the thread that started it; had that ended before this call, standard input is
    // already at its end and the loop below ends at once.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // A crash ends the process at once, for the parent to report (the Swift runtime's backtracer
    // would catch it and take seconds).
    const int crashes[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
    for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++) signal(crashes[i], SIG_DFL);
    // One drawing at a time: no thread pool in librsvg's filters, two malloc arenas at most, so
    // the address space stays near what was measured whatever the machine's cores.
    setenv("RAYON_NUM_THREADS", "1", 1);
    mallopt(M_ARENA_MAX, 2);
    for (;;) {
        draw_request request;
        if (!read_exactly(STDIN_FILENO, &request, sizeof request)) return 0;
        if (request.width == 0 || request.height == 0 || request.width > 32767 || request.height > 32767) return 1;
        uint8_t *bytes = malloc(request.count ? (size_t)request.count : 1);
        if (bytes == NULL || !read_exactly(STDIN_FILENO, bytes, (size_t)request.count)) return 1;
        draw_reply reply;
        memset(&reply, 0, sizeof reply);
        uint8_t *rows = draw(&request, bytes, &reply);
        free(bytes);
        int sent = write_exactly(STDIN_FILENO, &reply, sizeof reply)
            && (rows == NULL || write_exactly(STDIN_FILENO, rows, (size_t)request.width * request.height * 4));
        free(rows);
        if (!sent) return 0;
    }
}

// MARK: the parent

static const char *process_executable;

void msvg_process_use(const char *executable) { process_executable = executable; }

const char *msvg_process_executable(void) { return process_executable; }

/// A running child: its id, the parent's end of the socket (non-blocking, close-on-exec), and
/// whether it waits for a drawing.
typedef struct drawing_child {
    pid_t pid;
    int socket;
    int idle;
    struct drawing_child *next;
} drawing_child;

/// Every running child: a drawing takes an idle one (or has one started), and gives it back
/// after; the command's exit reaps them all (their CPU time then counts in the command's, as
/// `time` and wait4 report it).
static pthread_mutex_t children_lock = PTHREAD_MUTEX_INITIALIZER;
static drawing_child *children;

static void list_child(drawing_child *child) {
    pthread_mutex_lock(&children_lock);
    child->idle = 0;
    child->next = children;
    children = child;
    pthread_mutex_unlock(&children_lock);
}

/// An idle child, now busy; NULL when every child draws.
static drawing_child *take_idle_child(void) {
    pthread_mutex_lock(&children_lock);
    drawing_child *child = children;
    while (child != NULL && !child->idle) child = child->next;
    if (child != NULL) child->idle = 0;
    pthread_mutex_unlock(&children_lock);
    return child;
}

static void give_back(drawing_child *child) {
    pthread_mutex_lock(&children_lock);
    child->idle = 1;
    pthread_mutex_unlock(&children_lock);
}

/// Takes `child` out of the list: 0 when the exit already took it.
static int unlist(drawing_child *child) {
    pthread_mutex_lock(&children_lock);
    drawing_child **link = &children;
    while (*link != NULL && *link != child) link = &(*link)->next;
    int found = *link != NULL;
    if (found) *link = child->next;
    pthread_mutex_unlock(&children_lock);
    return found;
}

/// Kills an unlisted child (it may be drawing), reaps it and frees it.
static void stop_child(drawing_child *child) {
    close(child->socket);
    kill(child->pid, SIGKILL);
    while (waitpid(child->pid, NULL, 0) < 0 && errno == EINTR) {}
    free(child);
}

/// At the process's exit, every child left.
static void stop_all_children(void) {
    pthread_mutex_lock(&children_lock);
    drawing_child *left = children;
    children = NULL;
    pthread_mutex_unlock(&children_lock);
    while (left != NULL) {
        drawing_child *next = left->next;
        stop_child(left);
        left = next;
    }
}

/// Starts a child of `executable` with its end of a new socket pair as standard input.
static drawing_child *start_child(const char *executable, mb_message *message) {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        mb_message_set(message, "cannot start the SVG drawing process: %s", strerror(errno));
        return NULL;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, ends[1], STDIN_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
    // Default dispositions and no blocked signal (the command ignores SIGPIPE; workers may block some).
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *arguments[] = { (char *)executable, MSVG_PROCESS_ARGUMENT, NULL };
    pid_t pid;
    int failure = posix_spawn(&pid, executable, &actions, &attributes, arguments, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(ends[1]);
    drawing_child *child = failure == 0 ? malloc(sizeof *child) : NULL;
    if (child == NULL) {
        mb_message_set(message, "cannot start the SVG drawing process: %s", strerror(failure ? failure : ENOMEM));
        close(ends[0]);
        if (failure == 0) { kill(pid, SIGKILL); waitpid(pid, NULL, 0); }
        return NULL;
    }
    fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK);
    child->pid = pid;
    child->socket = ends[0];
    return child;
}

typedef enum { MOVED, LATE, ENDED } transfer_result;

/// Waits for `events` on `fd` until `deadline` (CLOCK_MONOTONIC).
static transfer_result wait_for(int fd, short events, const struct timespec *deadline) {
    for (;;) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t left = (int64_t)(deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
        if (left <= 0) return LATE;
        struct pollfd watched = { .fd = fd, .events = events };
        int ready = poll(&watched, 1, left > 60000 ? 60000 : (int)left);
        if (ready > 0) return MOVED;
        if (ready < 0 && errno != EINTR) return ENDED;
    }
}

/// Sends or receives exactly `count` bytes before `deadline`; ENDED when the child closed its end.
static transfer_result transfer(int fd, void *buffer, size_t count, int sending, const struct timespec *deadline) {
    uint8_t *at = buffer;
    while (count > 0) {
        ssize_t moved = sending ? send(fd, at, count, MSG_NOSIGNAL) : recv(fd, at, count, 0);
        if (moved > 0) {
            at += moved;
            count -= (size_t)moved;
        } else if (moved < 0 && (errno == EAGAIN || errno == EINTR)) {
            transfer_result waited = wait_for(fd, sending ? POLLOUT : POLLIN, deadline);
            if (waited != MOVED) return waited;
        } else {
            return ENDED;
        }
    }
    return MOVED;
}

/// Why an unlisted child that closed its socket ended (it is reaped here).
static void report_end(drawing_child *child, mb_message *message) {
    close(child->socket);
    int status = 0;
    while (waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status)) {
        const char *name = sigabbrev_np(WTERMSIG(status));
        mb_message_set(message, "librsvg ended by signal %d (SIG%s) while drawing the SVG", WTERMSIG(status), name ? name : "?");
    } else {
        mb_message_set(message, "the SVG drawing process exited with status %d", WEXITSTATUS(status));
    }
    free(child);
}

// Children are started by one thread that lives as long as the process: PR_SET_PDEATHSIG kills a
// child when the *thread* that started it ends, and the sheet's workers end with each page.
static pthread_mutex_t spawn_turn = PTHREAD_MUTEX_INITIALIZER;   // one request at a time
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spawn_changed = PTHREAD_COND_INITIALIZER;
static struct {
    const char *executable;
    int asked, answered;
    drawing_child *child;
    mb_message message;
} spawn;
static pthread_once_t spawner_once = PTHREAD_ONCE_INIT;
static int spawner_missing;

static void *spawner_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&spawn_lock);
    for (;;) {
        while (!spawn.asked) pthread_cond_wait(&spawn_changed, &spawn_lock);
        spawn.asked = 0;
        mb_message_clear(&spawn.message);
        spawn.child = start_child(spawn.executable, &spawn.message);
        if (spawn.child != NULL) list_child(spawn.child);
        spawn.answered = 1;
        pthread_cond_broadcast(&spawn_changed);
    }
    return NULL;
}

static void start_spawner(void) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    spawner_missing = pthread_create(&thread, &attributes, spawner_main, NULL);
    pthread_attr_destroy(&attributes);
    atexit(stop_all_children);
}

/// A new busy child of `executable`, started by the spawner thread; NULL with the reason.
static drawing_child *spawn_child(const char *executable, mb_message *message) {
    pthread_once(&spawner_once, start_spawner);
    if (spawner_missing) {
        mb_message_set(message, "cannot start the SVG drawing process: %s", strerror(spawner_missing));
        return NULL;
    }
    pthread_mutex_lock(&spawn_turn);
    pthread_mutex_lock(&spawn_lock);
    spawn.executable = executable;
    spawn.answered = 0;
    spawn.asked = 1;
    pthread_cond_broadcast(&spawn_changed);
    while (!spawn.answered) pthread_cond_wait(&spawn_changed, &spawn_lock);
    drawing_child *child = spawn.child;
    if (child == NULL) *message = spawn.message;
    pthread_mutex_unlock(&spawn_lock);
    pthread_mutex_unlock(&spawn_turn);
    return child;
}

mb_status msvg_process_draw(const char *executable, const uint8_t *bytes, size_t count, double natural_width, double natural_height,
                            uint32_t width, uint32_t height, uint32_t deadline_seconds, uint64_t memory_bytes,
                            msvg_intrinsic *intrinsic, uint8_t *rgba, mb_message *message) {
    if (executable == NULL || bytes == NULL || rgba == NULL || intrinsic == NULL) return MB_USAGE;
    drawing_child *child = take_idle_child();
    if (child == NULL) child = spawn_child(executable, message);
    if (child == NULL) return MB_UNSUPPORTED;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += deadline_seconds;
    draw_request request = { count, memory_bytes, natural_width, natural_height, width, height };
    draw_reply reply;
    transfer_result result = transfer(child->socket, &request, sizeof request, 1, &deadline);
    if (result == MOVED) result = transfer(child->socket, (void *)bytes, count, 1, &deadline);
    if (result == MOVED) result = transfer(child->socket, &reply, sizeof reply, 0, &deadline);
    if (result == MOVED && reply.status == MB_OK) result = transfer(child->socket, rgba, (size_t)width * height * 4, 0, &deadline);
    if (result != MOVED) {
        unlist(child);
        if (result == LATE) {
            stop_child(child);
            mb_message_set(message, "drawing the SVG took longer than %u s", deadline_seconds);
            return MB_LIMIT;
        }
        report_end(child, message);
        return MB_MALFORMED;
    }
    give_back(child);
    *intrinsic = reply.intrinsic;
    reply.message.text[sizeof reply.message.text - 1] = 0;
    *message = reply.message;
    return reply.status;
}
