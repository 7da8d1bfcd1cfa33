/* warden-test-util.h: what several test programs need alike
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agent/warden-approval.h"
#include "engine/warden-docker-client.h"
#include "sandbox/warden-sandbox.h"

G_BEGIN_DECLS

/* Removes @path (a file, or a folder and everything below it, read-only
 * parts too); links are removed, not followed. */
void      warden_test_remove_tree    (const char    *path);

/* Every file, link and folder under @dir (links not followed), with its
 * type, executable bit and content (a checksum), one a line, sorted; .git
 * folders only @with_git: two trees are the same when their texts are. */
char     *warden_test_describe_tree  (const char    *dir,
                                      gboolean       with_git);

/* A GAsyncReadyCallback that keeps a reference to the result in the
 * GAsyncResult * that @user_data points to. */
void      warden_test_keep_result_cb (GObject       *object,
                                      GAsyncResult  *result,
                                      gpointer       user_data);
/* Iterates the default main context until *@result is set. */
void      warden_test_wait_result    (GAsyncResult **result);

/* A Docker engine answers a ping (DOCKER_HOST or the default socket). */
gboolean  warden_test_docker_usable  (void);
/* For tests that need Docker: TRUE (and the test is skipped) without an
 * engine; under CI=true its absence fails the test instead. */
gboolean  warden_test_skip_without_docker (void);

/* A docker sandbox for @config on the one client the program's tests
 * share (DOCKER_HOST or the default socket). A new client asks the engine
 * what it is first (/version and /info: about 5 s together on Podman 4.3,
 * where a container takes 1 s), and the answer is the same for every test;
 * the tests of that asking make clients of their own. */
WardenSandbox *warden_test_docker_sandbox_new (const WardenSandboxConfig *config);

/* The engine the docker tests run against, as the suite's entry says in
 * WARDEN_TEST_ENGINE: "podman", else Docker. WARDEN_TEST_ROOTLESS=1 when
 * it runs rootless. */
WardenDockerEngineKind warden_test_expected_engine   (void);
gboolean               warden_test_expected_rootless (void);

/* @b shows the user what @a does, field by field: a question asked again
 * after a restart is the question asked the first time. */
void      warden_test_assert_same_approval (WardenApproval *a,
                                            WardenApproval *b);

G_END_DECLS
