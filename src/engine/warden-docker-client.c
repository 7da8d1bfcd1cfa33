/* warden-docker-client.c: the Docker Engine API over libsoup
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-sandbox"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "engine/warden-docker-client.h"

#include <string.h>

#include <gio/gunixsocketaddress.h>
#include <libsoup/soup.h>

#include "common/warden-json.h"
#include "engine/warden-ssh-bridge.h"

#define DEFAULT_HOST       "unix:///var/run/docker.sock"
#define DEFAULT_TCP_PORT   2375
#define DEFAULT_TLS_PORT   2376
#define API_PREFIX         "/v" WARDEN_DOCKER_API_VERSION
#define USER_AGENT         "warden/" PACKAGE_VERSION

/* Output is read in blocks of READ_SIZE; a frame split across reads is put
 * together again up to MAX_FRAME_BUFFER and handed on in pieces beyond, so
 * memory stays bounded whatever the command prints. */
#define READ_SIZE          (64 * 1024)
#define MAX_FRAME_BUFFER   (1024 * 1024)
#define FRAME_HEADER_SIZE  8
#define MAX_ERROR_BODY     (64 * 1024)
#define MAX_HEADERS_SIZE   (64 * 1024)

struct _WardenDockerClient
{
  GObject             parent_instance;

  char               *host;         /* as the user would write DOCKER_HOST */
  char               *base_uri;     /* "http://localhost/v1.41" */
  char               *host_header;  /* Host: of the hand-written exec request */
  GSocketConnectable *connectable;  /* where a hijacked exec connects */
  SoupSession        *session;
  GTlsCertificate    *certificate;  /* the client certificate; NULL without TLS */
  WardenSshBridge    *bridge;       /* ssh://: what the connectable leads to */

  /* What warden_docker_client_query_engine_async() found. */
  WardenDockerEngineKind engine_kind;
  char               *engine_version;
  gboolean            rootless;
  gboolean            selinux;
  gboolean            cgroup_v1;
};

enum {
  PROP_0,
  PROP_HOST,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (WardenDockerClient, warden_docker_client, G_TYPE_OBJECT)

G_DEFINE_QUARK (warden-docker-error-quark, warden_docker_error)

static void
warden_docker_client_dispose (GObject *object)
{
  WardenDockerClient *self = WARDEN_DOCKER_CLIENT (object);

  g_clear_object (&self->session);
  g_clear_object (&self->connectable);
  g_clear_object (&self->certificate);
  g_clear_object (&self->bridge);

  G_OBJECT_CLASS (warden_docker_client_parent_class)->dispose (object);
}

static void
warden_docker_client_finalize (GObject *object)
{
  WardenDockerClient *self = WARDEN_DOCKER_CLIENT (object);

  g_free (self->host);
  g_free (self->base_uri);
  g_free (self->host_header);
  g_free (self->engine_version);

  G_OBJECT_CLASS (warden_docker_client_parent_class)->finalize (object);
}

static void
warden_docker_client_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  WardenDockerClient *self = WARDEN_DOCKER_CLIENT (object);

  switch (prop_id)
    {
    case PROP_HOST:
      g_value_set_string (value, self->host);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
warden_docker_client_class_init (WardenDockerClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = warden_docker_client_dispose;
  object_class->finalize = warden_docker_client_finalize;
  object_class->get_property = warden_docker_client_get_property;

  properties[PROP_HOST] =
    g_param_spec_string ("host", NULL, NULL,
                         NULL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
warden_docker_client_init (WardenDockerClient *self)
{
}

/* Construction */

static gboolean
load_tls_files (const char       *cert_path,
                GTlsDatabase    **database,
                GTlsCertificate **certificate,
                GError          **error)
{
  static const char *names[] = { "ca.pem", "cert.pem", "key.pem" };
  g_autofree char *ca = g_build_filename (cert_path, "ca.pem", NULL);
  g_autofree char *cert = g_build_filename (cert_path, "cert.pem", NULL);
  g_autofree char *key = g_build_filename (cert_path, "key.pem", NULL);
  g_autoptr(GError) local_error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (cert_path, names[i], NULL);

      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFIG,
                       _("The TLS file %s is missing: put ca.pem, cert.pem and key.pem in %s, "
                         "or set DOCKER_CERT_PATH to the folder that has them"),
                       path, cert_path);
          return FALSE;
        }
    }

  *database = g_tls_file_database_new (ca, &local_error);
  if (*database == NULL)
    {
      g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFIG,
                   _("Could not load the Docker CA certificate %s: %s"),
                   ca, local_error->message);
      return FALSE;
    }

  *certificate = g_tls_certificate_new_from_files (cert, key, &local_error);
  if (*certificate == NULL)
    {
      g_clear_object (database);
      g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFIG,
                   _("Could not load the Docker client certificate %s with key %s: %s"),
                   cert, key, local_error->message);
      return FALSE;
    }

  return TRUE;
}

static void
set_unsupported_host_error (GError     **error,
                            const char  *host)
{
  g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFIG,
               _("The Docker host “%s” is not usable: set DOCKER_HOST to "
                 "unix:///path/to/docker.sock, tcp://HOST:PORT or ssh://[USER@]HOST[:PORT]"),
               host);
}

WardenDockerClient *
warden_docker_client_new (const char  *host,
                          const char  *cert_path,
                          GError     **error)
{
  g_autoptr(WardenDockerClient) self = NULL;
  g_autoptr(GTlsDatabase) database = NULL;
  gboolean is_unix;
  gboolean is_ssh;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (host == NULL || host[0] == '\0')
    host = DEFAULT_HOST;

  self = g_object_new (WARDEN_TYPE_DOCKER_CLIENT, NULL);
  is_unix = g_str_has_prefix (host, "unix://");
  is_ssh = g_str_has_prefix (host, "ssh://");

  if (is_ssh)
    {
      g_autoptr(GError) local_error = NULL;

      /* ssh carries the bytes to a socket of ours: the rest is as for unix://. */
      self->bridge = warden_ssh_bridge_new (host, &local_error);
      if (self->bridge == NULL)
        {
          g_set_error_literal (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFIG,
                               local_error->message);
          return NULL;
        }
      self->host = g_strdup (warden_ssh_bridge_get_uri (self->bridge));
      self->base_uri = g_strdup ("http://localhost" API_PREFIX);
      self->host_header = g_strdup ("localhost");
      self->connectable = g_object_ref (warden_ssh_bridge_get_connectable (self->bridge));
      if (cert_path != NULL)
        g_debug ("Ignoring the TLS files in %s for %s: ssh protects it", cert_path, host);
    }
  else if (is_unix)
    {
      const char *path = host + strlen ("unix://");

      if (path[0] == '\0')
        {
          set_unsupported_host_error (error, host);
          return NULL;
        }

      self->host = g_strdup (host);
      self->base_uri = g_strdup ("http://localhost" API_PREFIX);
      self->host_header = g_strdup ("localhost");
      self->connectable = G_SOCKET_CONNECTABLE (g_unix_socket_address_new (path));

      /* TLS only protects TCP; the docker CLI ignores it for sockets too. */
      if (cert_path != NULL)
        g_debug ("Ignoring the TLS files in %s for %s", cert_path, host);
    }
  else
    {
      /* Like the docker CLI, a bare "HOST:PORT" means TCP. */
      g_autofree char *spec = strstr (host, "://") ? g_strdup (host)
                                                   : g_strconcat ("tcp://", host, NULL);
      g_autoptr(GUri) uri = g_uri_parse (spec, G_URI_FLAGS_NONE, NULL);
      const char *hostname;
      const char *path;
      int port;

      if (uri == NULL ||
          g_strcmp0 (g_uri_get_scheme (uri), "tcp") != 0 ||
          (hostname = g_uri_get_host (uri)) == NULL || hostname[0] == '\0' ||
          ((path = g_uri_get_path (uri))[0] != '\0' && strcmp (path, "/") != 0) ||
          g_uri_get_query (uri) != NULL || g_uri_get_userinfo (uri) != NULL)
        {
          set_unsupported_host_error (error, host);
          return NULL;
        }

      port = g_uri_get_port (uri);
      if (port <= 0)
        port = cert_path != NULL ? DEFAULT_TLS_PORT : DEFAULT_TCP_PORT;

      if (cert_path != NULL && !load_tls_files (cert_path, &database, &self->certificate, error))
        return NULL;

      self->host = strchr (hostname, ':') ? g_strdup_printf ("tcp://[%s]:%d", hostname, port)
                                          : g_strdup_printf ("tcp://%s:%d", hostname, port);
      self->host_header = g_strdup (self->host + strlen ("tcp://"));
      self->base_uri = g_uri_join (G_URI_FLAGS_NONE, cert_path != NULL ? "https" : "http",
                                   NULL, hostname, port, API_PREFIX, NULL, NULL);
      self->connectable = g_network_address_new (hostname, port);
    }

  /* The default of 2 connections per host would let two running execs
   * block every other call; no timeout, as an exec may be quiet for long.
   * No proxy: the engine is local or on the LAN, and a hijacked exec
   * could not pass one anyway. */
  self->session = soup_session_new_with_options ("max-conns", 64,
                                                 "max-conns-per-host", 32,
                                                 "timeout", 0,
                                                 "user-agent", USER_AGENT,
                                                 "remote-connectable",
                                                 is_unix || is_ssh ? self->connectable : NULL,
                                                 NULL);
  soup_session_set_proxy_resolver (self->session, NULL);
  if (database != NULL)
    soup_session_set_tls_database (self->session, database);

  return g_steal_pointer (&self);
}

static gboolean
is_socket (const char *path)
{
  GStatBuf st;

  return path != NULL && g_stat (path, &st) == 0 && S_ISSOCK (st.st_mode);
}

char *
warden_docker_client_find_host (void)
{
  const char *host = g_getenv ("DOCKER_HOST");
  g_autofree char *rootless = NULL;
  const char *runtime = g_getenv ("XDG_RUNTIME_DIR");

  if (host != NULL && host[0] != '\0')
    return g_strdup (host);
  host = g_getenv ("CONTAINER_HOST");
  if (host != NULL && host[0] != '\0')
    return g_strdup (host);
  /* Podman's own, for the user, first: on Fedora it is the engine there is. */
  if (runtime != NULL && runtime[0] != '\0')
    rootless = g_build_filename (runtime, "podman", "podman.sock", NULL);
  if (is_socket (rootless))
    return g_strconcat ("unix://", rootless, NULL);
  if (is_socket ("/var/run/docker.sock"))
    return g_strdup (DEFAULT_HOST);
  if (is_socket ("/run/podman/podman.sock"))
    return g_strdup ("unix:///run/podman/podman.sock");
  return g_strdup (DEFAULT_HOST);
}

WardenDockerClient *
warden_docker_client_new_from_env (GError **error)
{
  g_autofree char *host = warden_docker_client_find_host ();
  const char *tls_verify = g_getenv ("DOCKER_TLS_VERIFY");
  g_autofree char *cert_path = NULL;

  if (tls_verify != NULL && tls_verify[0] != '\0')
    {
      const char *env_path = g_getenv ("DOCKER_CERT_PATH");

      if (env_path != NULL && env_path[0] != '\0')
        cert_path = g_strdup (env_path);
      else
        cert_path = g_build_filename (g_get_home_dir (), ".docker", NULL);
    }

  return warden_docker_client_new (host, cert_path, error);
}

const char *
warden_docker_client_get_host (WardenDockerClient *self)
{
  g_return_val_if_fail (WARDEN_IS_DOCKER_CLIENT (self), NULL);

  return self->host;
}

/* Errors */

static char *
engine_message (GBytes *body)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *data;
  gsize size;

  if (body == NULL || g_bytes_get_size (body) == 0)
    return NULL;

  data = g_bytes_get_data (body, &size);

  if (json_parser_load_from_data (parser, data, size, NULL))
    {
      JsonNode *root = json_parser_get_root (parser);

      if (JSON_NODE_HOLDS_OBJECT (root))
        {
          const char *message = warden_json_get_string (json_node_get_object (root), "message");

          if (message != NULL && message[0] != '\0')
            return g_strdup (message);
        }
    }

  /* Not the engine's JSON (a proxy in between?): show the start of the text. */
  if (g_utf8_validate (data, size, NULL))
    {
      g_autofree char *text = g_strstrip (g_strndup (data, MIN (size, 200)));

      if (text[0] != '\0')
        return g_steal_pointer (&text);
    }

  return NULL;
}

static GError *
error_from_answer (guint       status,
                   const char *reason,
                   const char *what,
                   GBytes     *body)
{
  g_autofree char *message = engine_message (body);

  if (message == NULL)
    message = g_strdup (reason != NULL && reason[0] != '\0' ? reason
                                                          : soup_status_get_phrase (status));

  switch (status)
    {
    case SOUP_STATUS_NOT_FOUND:
      return g_error_new_literal (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_FOUND, message);

    case SOUP_STATUS_CONFLICT:
      return g_error_new_literal (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFLICT, message);

    case SOUP_STATUS_INTERNAL_SERVER_ERROR:
      /* Podman says a container name is taken with a 500, Docker with 409. */
      if (strstr (message, "is already in use") != NULL)
        return g_error_new_literal (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFLICT, message);
      G_GNUC_FALLTHROUGH;

    default:
      return g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_API,
                          _("The Docker engine answered %s with HTTP %u: %s"),
                          what, status, message);
    }
}

/* An error from the connection rather than from the engine's answer. */
static GError *
error_from_transport (WardenDockerClient *self,
                      const char         *what,
                      const GError       *error)
{
  if (error->domain == WARDEN_DOCKER_ERROR ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return g_error_copy (error);

  /* The engine did not close the connection: ssh did, and said why. */
  if (self->bridge != NULL)
    {
      g_autofree char *failure = warden_ssh_bridge_dup_failure (self->bridge);

      if (failure != NULL)
        return g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING,
                            _("Could not reach the container engine at %s through ssh: %s"),
                            self->host, failure);
    }

  if (error->domain == G_RESOLVER_ERROR ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    {
      g_autofree char *podman = g_find_program_in_path ("podman");

      /* Podman is there, and its socket is not listening. */
      if (podman != NULL)
        return g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING,
                            _("No container engine answers at %s (%s): start Podman's socket "
                              "(systemctl --user enable --now podman.socket), or Docker "
                              "(sudo systemctl start docker), or set DOCKER_HOST"),
                            self->host, error->message);
      return g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING,
                          _("The Docker engine at %s is not running (%s): start it "
                            "(sudo systemctl start docker) or set DOCKER_HOST"),
                          self->host, error->message);
    }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    return g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PERMISSION,
                        _("The Docker engine at %s refuses you (%s): add yourself to the "
                          "docker group (sudo usermod -aG docker $USER) and log in again"),
                        self->host, error->message);

  if (error->domain == G_TLS_ERROR)
    return g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFIG,
                        _("The TLS connection to the Docker engine at %s failed (%s): check "
                          "the certificates in DOCKER_CERT_PATH"),
                        self->host, error->message);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT))
    return g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING,
                        _("The Docker engine at %s closed the connection during %s (%s): "
                          "check that it is still running (sudo systemctl status docker)"),
                        self->host, what, error->message);

  return g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                      _("Could not read the answer of the Docker engine at %s to %s: %s"),
                      self->host, what, error->message);
}

static JsonNode *
parse_json (GBytes      *body,
            const char  *what,
            GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  const char *data = NULL;
  gsize size = 0;

  if (body != NULL)
    data = g_bytes_get_data (body, &size);

  if (size == 0)
    {
      g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                   _("The Docker engine's answer to %s is empty where JSON was expected"),
                   what);
      return NULL;
    }

  if (!json_parser_load_from_data (parser, data, size, &local_error))
    {
      g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                   _("The Docker engine's answer to %s is not JSON: %s"),
                   what, local_error->message);
      return NULL;
    }

  return json_parser_steal_root (parser);
}

static JsonObject *
node_get_object (JsonNode    *node,
                 const char  *what,
                 GError     **error)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                   _("The Docker engine's answer to %s is not a JSON object"), what);
      return NULL;
    }

  return json_node_get_object (node);
}

static GBytes *
json_to_bytes (JsonNode *node)
{
  char *data = warden_json_to_string (node, FALSE);

  return g_bytes_new_take (data, strlen (data));
}

/* Path segments keep "/" and ":" (image names, tags); query values escape all. */
static char *
escape_segment (const char *segment)
{
  return g_uri_escape_string (segment, "/:@", FALSE);
}

static char *
escape_value (const char *value)
{
  return g_uri_escape_string (value, NULL, FALSE);
}

static SoupMessage *
message_new (WardenDockerClient *self,
             const char         *method,
             const char         *path_and_query,
             JsonNode           *body)
{
  g_autofree char *uri = g_strconcat (self->base_uri, path_and_query, NULL);
  SoupMessage *msg;

  msg = soup_message_new (method, uri);
  g_return_val_if_fail (msg != NULL, NULL);

  if (self->certificate != NULL)
    soup_message_set_tls_client_certificate (msg, self->certificate);

  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = json_to_bytes (body);

      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
    }

  return msg;
}

/* "POST /containers/create", without the query: for messages. */
static char *
describe_request (const char *method,
                  const char *path_and_query)
{
  gsize path_length = strcspn (path_and_query, "?");

  return g_strdup_printf ("%s %.*s", method, (int) path_length, path_and_query);
}

/* Reading a whole (small) body from a stream */

typedef struct
{
  GByteArray *data;
  gsize       limit;
} ReadBody;

static void
read_body_free (gpointer data)
{
  ReadBody *state = data;

  g_clear_pointer (&state->data, g_byte_array_unref);
  g_free (state);
}

static void read_body_next (GTask *task);

static void
read_body_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ReadBody *state = g_task_get_task_data (task);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, &error);
  if (bytes == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (g_bytes_get_size (bytes) == 0 || state->data->len >= state->limit)
    {
      g_task_return_pointer (task, g_byte_array_free_to_bytes (g_steal_pointer (&state->data)),
                             (GDestroyNotify) g_bytes_unref);
      return;
    }

  g_byte_array_append (state->data, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  read_body_next (g_steal_pointer (&task));
}

static void
read_body_next (GTask *task)
{
  ReadBody *state = g_task_get_task_data (task);
  GInputStream *stream = g_task_get_source_object (task);

  if (state->data->len >= state->limit)
    {
      g_task_return_pointer (task, g_byte_array_free_to_bytes (g_steal_pointer (&state->data)),
                             (GDestroyNotify) g_bytes_unref);
      g_object_unref (task);
      return;
    }

  g_input_stream_read_bytes_async (stream, MIN (8192, state->limit - state->data->len),
                                   G_PRIORITY_DEFAULT, g_task_get_cancellable (task),
                                   read_body_cb, task);
}

/* Reads @stream to its end or to @limit bytes, whichever comes first. */
static void
read_body_async (GInputStream        *stream,
                 gsize                limit,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  GTask *task;
  ReadBody *state;

  task = g_task_new (stream, cancellable, callback, user_data);
  g_task_set_source_tag (task, read_body_async);
  state = g_new0 (ReadBody, 1);
  state->data = g_byte_array_new ();
  state->limit = limit;
  g_task_set_task_data (task, state, read_body_free);

  read_body_next (task);
}

static GBytes *
read_body_finish (GAsyncResult  *result,
                  GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* One request, its whole answer read: the building block of the small calls */

typedef struct
{
  SoupMessage *msg;
  char        *what;
} Call;

typedef struct
{
  GBytes *body;
  guint   status;
} Answer;

static void
call_free (gpointer data)
{
  Call *call = data;

  g_clear_object (&call->msg);
  g_free (call->what);
  g_free (call);
}

static void
answer_free (gpointer data)
{
  Answer *answer = data;

  g_clear_pointer (&answer->body, g_bytes_unref);
  g_free (answer);
}

static void
call_send_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerClient *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) error = NULL;
  Answer *answer;
  guint status;

  body = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &error);
  if (body == NULL)
    {
      g_task_return_error (task, error_from_transport (self, call->what, error));
      return;
    }

  status = soup_message_get_status (call->msg);
  if (status >= 400)
    {
      g_task_return_error (task, error_from_answer (status,
                                                    soup_message_get_reason_phrase (call->msg),
                                                    call->what, body));
      return;
    }

  answer = g_new0 (Answer, 1);
  answer->body = g_steal_pointer (&body);
  answer->status = status;
  g_task_return_pointer (task, answer, answer_free);
}

/* Sends @method @path_and_query (already escaped) with @body as JSON and
 * completes with the answer; an HTTP error status becomes a GError. */
static void
call_async_full (WardenDockerClient  *self,
                 const char          *method,
                 const char          *path_and_query,
                 JsonNode            *body,
                 SoupMessageFlags     flags,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Call *call;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, call_async_full);

  call = g_new0 (Call, 1);
  call->msg = message_new (self, method, path_and_query, body);
  call->what = describe_request (method, path_and_query);
  /* libsoup makes a new connection for every POST and DELETE: through
   * ssh that is a login each, about a second or more. The engine's calls
   * are safe to send on a connection kept from an earlier one. */
  if (self->bridge != NULL && !(flags & SOUP_MESSAGE_NEW_CONNECTION))
    flags |= SOUP_MESSAGE_IDEMPOTENT;
  soup_message_add_flags (call->msg, flags);
  g_task_set_task_data (task, call, call_free);

  soup_session_send_and_read_async (self->session, call->msg, G_PRIORITY_DEFAULT, cancellable,
                                    call_send_cb, g_steal_pointer (&task));
}

static void
call_async (WardenDockerClient  *self,
            const char          *method,
            const char          *path_and_query,
            JsonNode            *body,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  call_async_full (self, method, path_and_query, body, 0, cancellable, callback, user_data);
}

static Answer *
call_finish (GAsyncResult  *result,
             GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static const char *
call_get_what (GAsyncResult *result)
{
  Call *call = g_task_get_task_data (G_TASK (result));

  return call->what;
}

/* Finishes a call whose answer is a JSON document. */
static JsonNode *
call_finish_json (GAsyncResult  *result,
                  GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  Answer *answer;
  JsonNode *node;

  answer = call_finish (result, &local_error);
  if (answer == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  node = parse_json (answer->body, call_get_what (result), error);
  answer_free (answer);

  return node;
}

/* Finishes a call and takes "Id" from its JSON answer. */
static char *
call_finish_id (GAsyncResult  *result,
                GError       **error)
{
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object;
  const char *id;

  node = call_finish_json (result, error);
  if (node == NULL)
    return NULL;

  object = node_get_object (node, call_get_what (result), error);
  if (object == NULL)
    return NULL;

  id = warden_json_get_string (object, "Id");
  if (id == NULL || id[0] == '\0')
    {
      g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                   _("The Docker engine's answer to %s has no “Id”"), call_get_what (result));
      return NULL;
    }

  return g_strdup (id);
}

/* A call whose answer is only a status. */
static void
boolean_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  Answer *answer;

  answer = call_finish (result, &error);

  /* Removing a container that is gone already, or going (another removal,
   * say a cleanup at start, got there first: 409), is not an error. */
  if (g_task_get_source_tag (task) == warden_docker_client_container_remove_async &&
      (g_error_matches (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_FOUND) ||
       (g_error_matches (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_CONFLICT) &&
        strstr (error->message, "already in progress") != NULL)))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  if (answer == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  answer_free (answer);
  g_task_return_boolean (task, TRUE);
}

/* Ping */

void
warden_docker_client_ping_async (WardenDockerClient  *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_docker_client_ping_async);

  call_async (self, "GET", "/_ping", NULL, cancellable, boolean_cb, task);
}

gboolean
warden_docker_client_ping_finish (WardenDockerClient  *self,
                                  GAsyncResult        *result,
                                  GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Which engine */

static gboolean
strv_node_has (JsonObject *object,
               const char *member,
               const char *prefix)
{
  JsonNode *node = json_object_get_member (object, member);
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      const char *option = json_array_get_string_element (array, i);

      /* "name=rootless", "name=seccomp,profile=default" */
      if (option != NULL && g_str_has_prefix (option, prefix) &&
          (option[strlen (prefix)] == '\0' || option[strlen (prefix)] == ','))
        return TRUE;
    }
  return FALSE;
}

static void
info_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerClient *self = g_task_get_source_object (task);
  WardenDockerEngineKind kind = GPOINTER_TO_INT (g_task_get_task_data (task));
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *info;

  node = call_finish_json (result, &error);
  if (node == NULL || (info = node_get_object (node, call_get_what (result), &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Docker rootless says so in SecurityOptions; Podman's compat /info
   * also has a "Rootless" member (and "name=rootless" from 4.x on). */
  self->rootless = strv_node_has (info, "SecurityOptions", "name=rootless") ||
                   warden_json_get_boolean (info, "Rootless", FALSE);
  self->selinux = strv_node_has (info, "SecurityOptions", "name=selinux");
  self->cgroup_v1 = g_strcmp0 (warden_json_get_string (info, "CgroupVersion"), "1") == 0;
  self->engine_kind = kind;
  g_task_return_boolean (task, TRUE);
}

static void
version_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerClient *self = g_task_get_source_object (task);
  WardenDockerEngineKind kind = WARDEN_DOCKER_ENGINE_DOCKER;
  GCancellable *cancellable;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *version;
  JsonNode *components;

  node = call_finish_json (result, &error);
  if (node == NULL || (version = node_get_object (node, call_get_what (result), &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Podman names itself among the components; Docker's are "Engine",
   * "containerd", "runc". */
  components = json_object_get_member (version, "Components");
  if (components != NULL && JSON_NODE_HOLDS_ARRAY (components))
    {
      JsonArray *array = json_node_get_array (components);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_OBJECT (element) &&
              g_strcmp0 (warden_json_get_string (json_node_get_object (element), "Name"),
                         "Podman Engine") == 0)
            kind = WARDEN_DOCKER_ENGINE_PODMAN;
        }
    }
  g_free (self->engine_version);
  self->engine_version = g_strdup (warden_json_get_string (version, "Version"));
  g_task_set_task_data (task, GINT_TO_POINTER (kind), NULL);
  cancellable = g_task_get_cancellable (task);
  call_async (self, "GET", "/info", NULL, cancellable, info_cb, g_steal_pointer (&task));
}

void
warden_docker_client_query_engine_async (WardenDockerClient  *self,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_docker_client_query_engine_async);

  if (self->engine_kind != WARDEN_DOCKER_ENGINE_UNKNOWN)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  call_async (self, "GET", "/version", NULL, cancellable, version_cb, g_steal_pointer (&task));
}

gboolean
warden_docker_client_query_engine_finish (WardenDockerClient  *self,
                                          GAsyncResult        *result,
                                          GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

WardenDockerEngineKind
warden_docker_client_get_engine_kind (WardenDockerClient *self)
{
  g_return_val_if_fail (WARDEN_IS_DOCKER_CLIENT (self), WARDEN_DOCKER_ENGINE_UNKNOWN);

  return self->engine_kind;
}

const char *
warden_docker_client_get_engine_version (WardenDockerClient *self)
{
  g_return_val_if_fail (WARDEN_IS_DOCKER_CLIENT (self), NULL);

  return self->engine_kind != WARDEN_DOCKER_ENGINE_UNKNOWN ? self->engine_version : NULL;
}

gboolean
warden_docker_client_get_rootless (WardenDockerClient *self)
{
  g_return_val_if_fail (WARDEN_IS_DOCKER_CLIENT (self), FALSE);

  return self->rootless;
}

gboolean
warden_docker_client_get_selinux (WardenDockerClient *self)
{
  g_return_val_if_fail (WARDEN_IS_DOCKER_CLIENT (self), FALSE);

  return self->selinux;
}

gboolean
warden_docker_client_get_can_limit (WardenDockerClient *self)
{
  g_return_val_if_fail (WARDEN_IS_DOCKER_CLIENT (self), FALSE);

  return !(self->rootless && self->cgroup_v1);
}

char *
warden_docker_client_dup_engine_description (WardenDockerClient *self)
{
  const char *name;
  const char *version;

  g_return_val_if_fail (WARDEN_IS_DOCKER_CLIENT (self), NULL);

  if (self->engine_kind == WARDEN_DOCKER_ENGINE_UNKNOWN)
    return NULL;
  name = self->engine_kind == WARDEN_DOCKER_ENGINE_PODMAN ? "Podman" : "Docker";
  version = self->engine_version != NULL ? self->engine_version : "";
  if (self->rootless)
    /* Translators: an engine's name and version, as in “Podman 4.3.1, rootless” */
    return g_strdup_printf (_("%s %s, rootless"), name, version);
  return g_strstrip (g_strdup_printf ("%s %s", name, version));
}

const char *
warden_docker_client_get_engine_command (WardenDockerClient *self)
{
  g_return_val_if_fail (WARDEN_IS_DOCKER_CLIENT (self), NULL);

  return self->engine_kind == WARDEN_DOCKER_ENGINE_PODMAN ? "podman" : "docker";
}

/* Images */

static void
json_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  node = call_finish_json (result, &error);
  if (node == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, node, (GDestroyNotify) json_node_unref);
}

/* GET /KIND/NAME/json: an image's or a container's description. */
static void
inspect_async (WardenDockerClient  *self,
               const char          *kind,
               const char          *name,
               gpointer             source_tag,
               GCancellable        *cancellable,
               GAsyncReadyCallback  callback,
               gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autofree char *escaped = escape_segment (name);
  g_autofree char *path = g_strdup_printf ("/%s/%s/json", kind, escaped);

  g_task_set_source_tag (task, source_tag);
  call_async (self, "GET", path, NULL, cancellable, json_cb, task);
}

void
warden_docker_client_image_inspect_async (WardenDockerClient  *self,
                                          const char          *image,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data)
{
  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (image != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  inspect_async (self, "images", image, warden_docker_client_image_inspect_async, cancellable,
                 callback, user_data);
}

JsonNode *
warden_docker_client_image_inspect_finish (WardenDockerClient  *self,
                                           GAsyncResult        *result,
                                           GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

typedef struct
{
  gint64 current;
  gint64 total;
} Layer;

typedef struct
{
  char                     *image;
  const char               *command;       /* "docker" or "podman" */
  WardenDockerProgressFunc  progress;
  gpointer                  progress_data;
  SoupMessage              *msg;
  GInputStream             *body;
  GDataInputStream         *lines;
  GHashTable               *layers;        /* id → Layer */
  char                     *last_message;
} Pull;

static void
pull_free (gpointer data)
{
  Pull *pull = data;

  /* Closing early drops the connection instead of reading the rest. */
  if (pull->body != NULL)
    g_input_stream_close (pull->body, NULL, NULL);

  g_clear_object (&pull->lines);
  g_clear_object (&pull->body);
  g_clear_object (&pull->msg);
  g_clear_pointer (&pull->layers, g_hash_table_unref);
  g_free (pull->last_message);
  g_free (pull->image);
  g_free (pull);
}

/* Says how to pull with the engine in use: a Podman user has no docker command. */
static GError *
pull_error (Pull       *pull,
            const char *message)
{
  return g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PULL_FAILED,
                      _("Could not pull %s: %s; is the registry reachable? Pull it yourself "
                        "(%s pull %s) or build the image locally"),
                      pull->image, message, pull->command, pull->image);
}

static double
pull_fraction (Pull *pull)
{
  GHashTableIter iter;
  gpointer value;
  gint64 current = 0;
  gint64 total = 0;

  g_hash_table_iter_init (&iter, pull->layers);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Layer *layer = value;

      current += MIN (layer->current, layer->total);
      total += layer->total;
    }

  return total > 0 ? (double) current / (double) total : -1.0;
}

static Layer *
pull_get_layer (Pull       *pull,
                const char *id)
{
  Layer *layer = g_hash_table_lookup (pull->layers, id);

  if (layer == NULL)
    {
      layer = g_new0 (Layer, 1);
      g_hash_table_insert (pull->layers, g_strdup (id), layer);
    }

  return layer;
}

/* One line of the engine's progress: {"status", "id", "progressDetail"}
 * or {"error", "errorDetail"}. Returns FALSE with @error for the latter. */
static gboolean
pull_handle_line (Pull        *pull,
                  const char  *line,
                  gsize        length,
                  GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local_error = NULL;
  JsonObject *object;
  const char *status;
  const char *id;
  const char *failure;

  if (length == 0)
    return TRUE;

  if (!json_parser_load_from_data (parser, line, length, &local_error) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                   _("Could not read the Docker engine's progress pulling %s: %s"),
                   pull->image, local_error ? local_error->message : line);
      return FALSE;
    }

  object = json_node_get_object (json_parser_get_root (parser));

  failure = warden_json_get_string (object, "error");
  if (failure != NULL)
    {
      g_propagate_error (error, pull_error (pull, failure));
      return FALSE;
    }

  status = warden_json_get_string (object, "status");
  id = warden_json_get_string (object, "id");
  if (status == NULL)
    return TRUE;

  /* Only downloads count: extraction restarts from zero and would make the
   * bar go back. Layers that exist already add nothing. */
  if (id != NULL && strcmp (status, "Downloading") == 0)
    {
      JsonNode *detail = json_object_get_member (object, "progressDetail");

      if (detail != NULL && JSON_NODE_HOLDS_OBJECT (detail))
        {
          Layer *layer = pull_get_layer (pull, id);

          layer->current = warden_json_get_int (json_node_get_object (detail), "current", 0);
          layer->total = warden_json_get_int (json_node_get_object (detail), "total", 0);
        }
    }
  else if (id != NULL && (strcmp (status, "Download complete") == 0 ||
                          strcmp (status, "Pull complete") == 0))
    {
      Layer *layer = g_hash_table_lookup (pull->layers, id);

      if (layer != NULL)
        layer->current = layer->total;
    }

  g_free (pull->last_message);
  pull->last_message = id != NULL ? g_strdup_printf ("%s: %s", id, status) : g_strdup (status);

  if (pull->progress != NULL)
    pull->progress (pull_fraction (pull), pull->last_message, pull->progress_data);

  return TRUE;
}

static void
pull_line_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerClient *self = g_task_get_source_object (task);
  Pull *pull = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  gsize length;

  line = g_data_input_stream_read_line_finish (pull->lines, result, &length, &error);
  if (error != NULL)
    {
      g_autofree char *what = g_strdup_printf ("pulling %s", pull->image);

      g_task_return_error (task, error_from_transport (self, what, error));
      return;
    }

  if (line == NULL)
    {
      if (pull->progress != NULL)
        pull->progress (1.0, pull->last_message ? pull->last_message : pull->image,
                        pull->progress_data);
      g_task_return_boolean (task, TRUE);
      return;
    }

  g_strchomp (line);
  if (!pull_handle_line (pull, line, strlen (line), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_data_input_stream_read_line_async (pull->lines, G_PRIORITY_DEFAULT,
                                       cancellable,
                                       pull_line_cb, g_steal_pointer (&task));
}

static void
pull_error_body_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Pull *pull = g_task_get_task_data (task);
  g_autoptr(GBytes) body = NULL;
  g_autofree char *message = NULL;

  /* A broken error answer still means the pull failed. */
  body = read_body_finish (result, NULL);
  message = engine_message (body);
  if (message == NULL)
    message = g_strdup_printf ("HTTP %u %s", soup_message_get_status (pull->msg),
                               soup_message_get_reason_phrase (pull->msg));

  if (g_task_return_error_if_cancelled (task))
    return;

  g_task_return_error (task, pull_error (pull, message));
}

static void
pull_send_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerClient *self = g_task_get_source_object (task);
  Pull *pull = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  pull->body = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (pull->body == NULL)
    {
      g_autofree char *what = g_strdup_printf ("pulling %s", pull->image);

      g_task_return_error (task, error_from_transport (self, what, error));
      return;
    }

  /* The engine answers 404 for unknown images and 500 when the registry
   * cannot be reached: all of them mean the pull failed. */
  if (soup_message_get_status (pull->msg) >= 400)
    {
      read_body_async (pull->body, MAX_ERROR_BODY, cancellable,
                       pull_error_body_cb, g_steal_pointer (&task));
      return;
    }

  pull->lines = g_data_input_stream_new (pull->body);
  g_data_input_stream_set_newline_type (pull->lines, G_DATA_STREAM_NEWLINE_TYPE_LF);
  g_data_input_stream_read_line_async (pull->lines, G_PRIORITY_DEFAULT,
                                       cancellable,
                                       pull_line_cb, g_steal_pointer (&task));
}

void
warden_docker_client_image_pull_async (WardenDockerClient       *self,
                                       const char               *image,
                                       WardenDockerProgressFunc  progress,
                                       gpointer                  progress_data,
                                       GCancellable             *cancellable,
                                       GAsyncReadyCallback       callback,
                                       gpointer                  user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GString) path = NULL;
  g_autofree char *name = NULL;
  g_autofree char *escaped = NULL;
  const char *last_component;
  const char *tag = NULL;
  Pull *pull;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (image != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_docker_client_image_pull_async);

  pull = g_new0 (Pull, 1);
  pull->image = g_strdup (image);
  pull->command = warden_docker_client_get_engine_command (self);
  pull->progress = progress;
  pull->progress_data = progress_data;
  pull->layers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_task_set_task_data (task, pull, pull_free);

  /* Without a tag the engine pulls every tag of the repository: ask for
   * "latest" as the docker CLI does. A ":" before the last "/" is a port. */
  last_component = strrchr (image, '/');
  last_component = last_component ? last_component + 1 : image;
  name = g_strdup (image);
  if (strchr (last_component, '@') == NULL)
    {
      char *colon = strrchr (name + (last_component - image), ':');

      if (colon != NULL)
        {
          *colon = '\0';
          tag = colon + 1;
        }
      else
        {
          tag = "latest";
        }
    }

  path = g_string_new ("/images/create?fromImage=");
  escaped = escape_value (name);
  g_string_append (path, escaped);
  if (tag != NULL)
    {
      g_autofree char *escaped_tag = escape_value (tag);

      g_string_append_printf (path, "&tag=%s", escaped_tag);
    }

  pull->msg = message_new (self, "POST", path->str, NULL);
  soup_session_send_async (self->session, pull->msg, G_PRIORITY_DEFAULT, cancellable,
                           pull_send_cb, g_steal_pointer (&task));
}

gboolean
warden_docker_client_image_pull_finish (WardenDockerClient  *self,
                                        GAsyncResult        *result,
                                        GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Containers */

static void
id_cb (GObject      *object,
       GAsyncResult *result,
       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  char *id;

  id = call_finish_id (result, &error);
  if (id == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, id, g_free);
}

/* Limits no program in a sandbox needs more of, and that the engine can
 * grant: it cannot raise a hard limit above its own, and its own may be
 * below Warden's (Podman's service lowers its nproc to 32768 here, where
 * the login's is 96362). The container's PidsLimit bounds its processes
 * anyway; nproc counts all of the user's processes on the machine. */
#define SANE_NOFILE 65536
#define SANE_NPROC  16384

static void
add_ulimit (JsonArray  *ulimits,
            const char *name,
            int         resource,
            gint64      sane)
{
  struct rlimit limit;
  JsonObject *ulimit;
  gint64 value = sane;

  if (getrlimit (resource, &limit) == 0 && limit.rlim_max != RLIM_INFINITY &&
      limit.rlim_max < (rlim_t) sane)
    value = (gint64) limit.rlim_max;
  ulimit = json_object_new ();
  json_object_set_string_member (ulimit, "Name", name);
  json_object_set_int_member (ulimit, "Soft", value);
  json_object_set_int_member (ulimit, "Hard", value);
  json_array_add_object_element (ulimits, ulimit);
}

/* @config with Ulimits that fit this process's hard limits when it has none. */
static JsonNode *
config_with_ulimits (JsonNode *config)
{
  JsonNode *copy = json_node_copy (config);
  JsonObject *object;
  JsonObject *host_config;
  JsonArray *ulimits;

  if (!JSON_NODE_HOLDS_OBJECT (copy))
    return copy;
  object = json_node_get_object (copy);
  host_config = json_object_has_member (object, "HostConfig")
                ? json_object_get_object_member (object, "HostConfig") : NULL;
  if (host_config == NULL)
    {
      host_config = json_object_new ();
      json_object_set_object_member (object, "HostConfig", host_config);
    }
  if (json_object_has_member (host_config, "Ulimits"))
    return copy;
  ulimits = json_array_new ();
  add_ulimit (ulimits, "nofile", RLIMIT_NOFILE, SANE_NOFILE);
  add_ulimit (ulimits, "nproc", RLIMIT_NPROC, SANE_NPROC);
  json_object_set_array_member (host_config, "Ulimits", ulimits);
  return copy;
}

void
warden_docker_client_container_create_async (WardenDockerClient  *self,
                                             const char          *name,
                                             JsonNode            *config,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data)
{
  g_autofree char *path = NULL;
  g_autoptr(JsonNode) body = NULL;
  GTask *task;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (config != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_docker_client_container_create_async);

  if (name != NULL)
    {
      g_autofree char *escaped = escape_value (name);

      path = g_strdup_printf ("/containers/create?name=%s", escaped);
    }
  else
    {
      path = g_strdup ("/containers/create");
    }

  body = config_with_ulimits (config);
  call_async (self, "POST", path, body, cancellable, id_cb, task);
}

char *
warden_docker_client_container_create_finish (WardenDockerClient  *self,
                                              GAsyncResult        *result,
                                              GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* @method /containers/{@id}@suffix, whose answer is only a status. */
static void
container_call_async (WardenDockerClient  *self,
                      const char          *method,
                      const char          *id,
                      const char          *suffix,
                      gpointer             source_tag,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;
  GTask *task;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (id != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, source_tag);

  escaped = escape_value (id);
  path = g_strconcat ("/containers/", escaped, suffix, NULL);
  call_async (self, method, path, NULL, cancellable, boolean_cb, task);
}

void
warden_docker_client_container_start_async (WardenDockerClient  *self,
                                            const char          *id,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  /* 304, "already started", is a success too. */
  container_call_async (self, "POST", id, "/start",
                        warden_docker_client_container_start_async, cancellable, callback,
                        user_data);
}

gboolean
warden_docker_client_container_start_finish (WardenDockerClient  *self,
                                             GAsyncResult        *result,
                                             GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
warden_docker_client_container_restart_async (WardenDockerClient  *self,
                                              const char          *id,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data)
{
  /* t=0: SIGKILL at once, no grace period. */
  container_call_async (self, "POST", id, "/restart?t=0",
                        warden_docker_client_container_restart_async, cancellable, callback,
                        user_data);
}

gboolean
warden_docker_client_container_restart_finish (WardenDockerClient  *self,
                                               GAsyncResult        *result,
                                               GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
warden_docker_client_container_pause_async (WardenDockerClient  *self,
                                            const char          *id,
                                            gboolean             paused,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  container_call_async (self, "POST", id, paused ? "/pause" : "/unpause",
                        warden_docker_client_container_pause_async, cancellable, callback,
                        user_data);
}

gboolean
warden_docker_client_container_pause_finish (WardenDockerClient  *self,
                                             GAsyncResult        *result,
                                             GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
warden_docker_client_container_inspect_async (WardenDockerClient  *self,
                                              const char          *id,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data)
{
  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (id != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  inspect_async (self, "containers", id, warden_docker_client_container_inspect_async,
                 cancellable, callback, user_data);
}

JsonNode *
warden_docker_client_container_inspect_finish (WardenDockerClient  *self,
                                               GAsyncResult        *result,
                                               GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

void
warden_docker_client_container_remove_async (WardenDockerClient  *self,
                                             const char          *id,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data)
{
  container_call_async (self, "DELETE", id, "?force=true&v=true",
                        warden_docker_client_container_remove_async, cancellable, callback,
                        user_data);
}

gboolean
warden_docker_client_container_remove_finish (WardenDockerClient  *self,
                                              GAsyncResult        *result,
                                              GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* The answer to GET /containers/json: its array, or NULL with @task returned. */
static JsonArray *
containers_answer (GTask        *task,
                   GAsyncResult *result,
                   JsonNode    **node)
{
  g_autoptr(GError) error = NULL;

  *node = call_finish_json (result, &error);
  if (*node == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return NULL;
    }
  if (!JSON_NODE_HOLDS_ARRAY (*node))
    {
      g_task_return_new_error (task, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                               _("The Docker engine's answer to %s is not a JSON array"),
                               call_get_what (result));
      return NULL;
    }
  return json_node_get_array (*node);
}

static const char *
container_id (JsonNode *element)
{
  return JSON_NODE_HOLDS_OBJECT (element)
         ? warden_json_get_string (json_node_get_object (element), "Id")
         : NULL;
}

static void
container_list_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GStrvBuilder) ids = g_strv_builder_new ();
  g_autoptr(JsonNode) node = NULL;
  JsonArray *array = containers_answer (task, result, &node);

  if (array == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      const char *id = container_id (json_array_get_element (array, i));

      if (id != NULL)
        g_strv_builder_add (ids, id);
    }
  g_task_return_pointer (task, g_strv_builder_end (ids), (GDestroyNotify) g_strfreev);
}

/* GET /containers/json, all of them, with @label if not NULL. */
static char *
list_path (const char *label)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) filters = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *json = NULL;
  g_autofree char *escaped = NULL;

  if (label == NULL)
    return g_strdup ("/containers/json?all=true");

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "label");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, label);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  filters = json_builder_get_root (builder);

  bytes = json_to_bytes (filters);
  json = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  escaped = escape_value (json);
  return g_strdup_printf ("/containers/json?all=true&filters=%s", escaped);
}

void
warden_docker_client_container_list_async (WardenDockerClient  *self,
                                           const char          *label,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data)
{
  g_autofree char *path = NULL;
  GTask *task;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_docker_client_container_list_async);
  path = list_path (label);
  call_async (self, "GET", path, NULL, cancellable, container_list_cb, task);
}

static void
container_labels_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  const char *key = g_task_get_task_data (task);
  g_autoptr(GHashTable) found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(JsonNode) node = NULL;
  JsonArray *array = containers_answer (task, result, &node);

  if (array == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *id = container_id (element);
      JsonNode *labels = id ? json_object_get_member (json_node_get_object (element), "Labels")
                            : NULL;
      const char *value = NULL;

      if (id == NULL)
        continue;
      if (labels != NULL && JSON_NODE_HOLDS_OBJECT (labels))
        value = warden_json_get_string (json_node_get_object (labels), key);
      g_hash_table_insert (found, g_strdup (id), g_strdup (value ? value : ""));
    }
  g_task_return_pointer (task, g_steal_pointer (&found), (GDestroyNotify) g_hash_table_unref);
}

void
warden_docker_client_container_labels_async (WardenDockerClient  *self,
                                             const char          *label,
                                             const char          *key,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data)
{
  g_autofree char *path = NULL;
  GTask *task;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (key != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_docker_client_container_labels_async);
  g_task_set_task_data (task, g_strdup (key), g_free);
  path = list_path (label);
  call_async (self, "GET", path, NULL, cancellable, container_labels_cb, task);
}

GHashTable *
warden_docker_client_container_labels_finish (WardenDockerClient  *self,
                                              GAsyncResult        *result,
                                              GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

GStrv
warden_docker_client_container_list_finish (WardenDockerClient  *self,
                                            GAsyncResult        *result,
                                            GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Exec */

static void
add_string_array (JsonBuilder        *builder,
                  const char         *member,
                  const char * const *strv)
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (guint i = 0; strv[i] != NULL; i++)
    json_builder_add_string_value (builder, strv[i]);
  json_builder_end_array (builder);
}

void
warden_docker_client_exec_create_async (WardenDockerClient  *self,
                                        const char          *container_id,
                                        const char * const  *argv,
                                        const char * const  *env,
                                        const char          *workdir,
                                        const char          *user,
                                        gboolean             with_stdin,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) body = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;
  GTask *task;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (container_id != NULL);
  g_return_if_fail (argv != NULL && argv[0] != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_docker_client_exec_create_async);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "AttachStdin");
  json_builder_add_boolean_value (builder, with_stdin);
  json_builder_set_member_name (builder, "AttachStdout");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "AttachStderr");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "Tty");
  json_builder_add_boolean_value (builder, FALSE);
  add_string_array (builder, "Cmd", argv);
  if (env != NULL)
    add_string_array (builder, "Env", env);
  if (workdir != NULL)
    {
      json_builder_set_member_name (builder, "WorkingDir");
      json_builder_add_string_value (builder, workdir);
    }
  if (user != NULL)
    {
      json_builder_set_member_name (builder, "User");
      json_builder_add_string_value (builder, user);
    }
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);

  escaped = escape_value (container_id);
  path = g_strdup_printf ("/containers/%s/exec", escaped);
  call_async (self, "POST", path, body, cancellable, id_cb, task);
}

char *
warden_docker_client_exec_create_finish (WardenDockerClient  *self,
                                         GAsyncResult        *result,
                                         GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Exec start: the output arrives as frames of an 8-byte header (stream,
 * three zero bytes, big-endian length) and the payload. Without standard
 * input the body of a plain request carries them; with it, the connection
 * is ours from the answer on ("hijacked") so that we can write to it. */

typedef struct
{
  char                   *exec_id;
  char                   *what;
  GBytes                 *stdin_data;
  WardenDockerOutputFunc  output;
  gpointer                output_data;

  SoupMessage            *msg;           /* without stdin */
  GSocketConnection      *connection;    /* with stdin */
  GBytes                 *request;       /* the hand-written request */
  GDataInputStream       *lines;         /* the hijacked answer, headers then frames */
  GString                *headers;
  GInputStream           *input;         /* where the frames come from */
  GCancellable           *write_cancellable;
  gboolean                writing;
  gboolean                reading;
  guint                   status;        /* of an error answer */
  GError                 *error;         /* the outcome, once reading stopped */

  guint8                 *buffer;        /* READ_SIZE */
  guint8                  header[FRAME_HEADER_SIZE];
  gsize                   header_length;
  gboolean                in_payload;
  int                     stream;
  gsize                   frame_size;
  gsize                   remaining;     /* of the current frame's payload */
  GByteArray             *frame;         /* a payload split across reads */
  int                     exit_code;     /* from the check at the end; -1 if unknown */
  gboolean                reset;         /* the hijacked connection was reset, see below */
} ExecStart;

static void
exec_start_close (ExecStart *state)
{
  /* Neither blocks: libsoup drops a connection whose body was not read to
   * the end, and a socket just closes. A pending write is cancelled first. */
  if (state->input != NULL && !g_input_stream_is_closed (state->input))
    g_input_stream_close (state->input, NULL, NULL);
  if (state->connection != NULL && !state->writing &&
      !g_io_stream_is_closed (G_IO_STREAM (state->connection)))
    g_io_stream_close (G_IO_STREAM (state->connection), NULL, NULL);
}

static void
exec_start_free (gpointer data)
{
  ExecStart *state = data;

  exec_start_close (state);

  g_free (state->exec_id);
  g_free (state->what);
  g_clear_pointer (&state->stdin_data, g_bytes_unref);
  g_clear_object (&state->msg);
  g_clear_object (&state->input);
  g_clear_object (&state->lines);
  g_clear_object (&state->connection);
  g_clear_pointer (&state->request, g_bytes_unref);
  if (state->headers != NULL)
    g_string_free (state->headers, TRUE);
  g_clear_object (&state->write_cancellable);
  g_clear_error (&state->error);
  g_free (state->buffer);
  g_clear_pointer (&state->frame, g_byte_array_unref);
  g_free (state);
}

static void
exec_start_emit (ExecStart    *state,
                 const guint8 *data,
                 gsize         length)
{
  /* Stream 3 carries the engine's own errors: show them as stderr. */
  int stream = state->stream == 3 ? 2 : (state->stream == 0 ? 1 : state->stream);

  if (state->output != NULL && length > 0)
    state->output (stream, (const char *) data, length, state->output_data);
}

/* Feeds bytes read from the connection to the frame parser. */
static gboolean
exec_start_feed (ExecStart     *state,
                 const guint8  *data,
                 gsize          length,
                 GError       **error)
{
  while (length > 0)
    {
      gsize take;

      if (!state->in_payload)
        {
          guint32 size;

          take = MIN (FRAME_HEADER_SIZE - state->header_length, length);
          memcpy (state->header + state->header_length, data, take);
          state->header_length += take;
          data += take;
          length -= take;

          if (state->header_length < FRAME_HEADER_SIZE)
            break;

          if (state->header[0] > 3 || state->header[1] != 0 ||
              state->header[2] != 0 || state->header[3] != 0)
            {
              g_set_error (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                           _("The output of exec %s is not in Docker's multiplexed format: "
                             "was it created with a terminal (Tty)?"),
                           state->exec_id);
              return FALSE;
            }

          memcpy (&size, state->header + 4, sizeof size);
          state->stream = state->header[0];
          state->frame_size = GUINT32_FROM_BE (size);
          state->remaining = state->frame_size;
          state->header_length = 0;
          state->in_payload = state->remaining > 0;
          continue;
        }

      take = MIN (state->remaining, length);

      if (state->frame_size > MAX_FRAME_BUFFER ||
          (state->frame->len == 0 && take == state->frame_size))
        {
          /* A whole frame in this read, or one too big to hold: pass it on as is. */
          exec_start_emit (state, data, take);
        }
      else
        {
          g_byte_array_append (state->frame, data, take);
          if (state->frame->len == state->frame_size)
            {
              exec_start_emit (state, state->frame->data, state->frame->len);
              g_byte_array_set_size (state->frame, 0);
            }
        }

      state->remaining -= take;
      state->in_payload = state->remaining > 0;
      data += take;
      length -= take;
    }

  return TRUE;
}

static void
exec_start_complete (GTask *task)
{
  ExecStart *state = g_task_get_task_data (task);

  if (state->reading || state->writing)
    return;

  exec_start_close (state);

  if (state->error != NULL)
    g_task_return_error (task, g_steal_pointer (&state->error));
  else
    g_task_return_boolean (task, TRUE);
}

/* Reading stopped with @error (NULL at a clean end): stop writing too. */
static void
exec_start_stop (GTask  *task,
                 GError *error)
{
  ExecStart *state = g_task_get_task_data (task);

  state->reading = FALSE;
  g_clear_error (&state->error);
  state->error = error;

  if (state->writing)
    g_cancellable_cancel (state->write_cancellable);
  exec_start_close (state);

  exec_start_complete (task);
}

static void
exec_start_check_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerClient *self = g_task_get_source_object (task);
  ExecStart *state = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  Answer *answer;

  answer = call_finish (result, &error);
  if (answer != NULL)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonNode *node = NULL;
      gsize len = 0;
      const char *data = answer->body ? g_bytes_get_data (answer->body, &len) : NULL;

      /* The exec's state: its exit code saves the caller another request. */
      if (data != NULL && json_parser_load_from_data (parser, data, len, NULL))
        node = json_parser_get_root (parser);
      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
        {
          JsonObject *json = json_node_get_object (node);

          if (!warden_json_get_boolean (json, "Running", FALSE))
            {
              state->exit_code = (int) warden_json_get_int (json, "ExitCode", -1);
              /* The command ended and the engine is there: the reset
               * came after all of its output. */
              if (state->reset)
                g_clear_error (&state->error);
            }
        }
      answer_free (answer);
    }
  else
    {
      if (g_error_matches (error, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING))
        {
          g_clear_error (&state->error);
          state->error = g_error_new (WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING,
                                      _("The Docker engine at %s stopped while exec %s ran: "
                                        "start it again (sudo systemctl start docker)"),
                                      self->host, state->exec_id);
        }
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_clear_error (&state->error);
          state->error = g_steal_pointer (&error);
        }
      /* Any other answer: the engine is there; the exit code stays unknown. */
    }

  exec_start_stop (task, g_steal_pointer (&state->error));
}

/* The stream ended (@error NULL) or broke. A dying engine also just closes
 * the connection, so ask whether it is still there before saying all went
 * well; on a new connection, as one stopping keeps serving those it has.
 * Asking for the exec's state does that and brings its exit code along. */
static void
exec_start_check_engine (GTask  *task,
                         GError *error)
{
  WardenDockerClient *self = g_task_get_source_object (task);
  ExecStart *state = g_task_get_task_data (task);

  if (state->writing)
    g_cancellable_cancel (state->write_cancellable);
  exec_start_close (state);
  g_clear_error (&state->error);
  state->error = error;

  {
    g_autofree char *path = g_strdup_printf ("/exec/%s/json", state->exec_id);

    call_async_full (self, "GET", path, NULL, SOUP_MESSAGE_NEW_CONNECTION,
                     g_task_get_cancellable (task), exec_start_check_cb, g_object_ref (task));
  }
}

static void exec_start_read_next (GTask *task);

static void
exec_start_read_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WardenDockerClient *self = g_task_get_source_object (task);
  ExecStart *state = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  gssize n_read;

  n_read = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);

  if (n_read < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      exec_start_stop (task, g_steal_pointer (&error));
      return;
    }

  /* Podman resets a hijacked connection whose command ended without
   * reading all of its input, where Docker closes it: what was sent before
   * the reset is all there was, if the exec has ended (the check says). */
  if (n_read < 0 && state->connection != NULL && !state->in_payload &&
      state->header_length == 0 && g_error_matches (error, G_IO_ERROR,
                                                    G_IO_ERROR_CONNECTION_CLOSED))
    state->reset = TRUE;

  if (n_read < 0)
    {
      exec_start_check_engine (task, error_from_transport (self, state->what, error));
      return;
    }

  if (n_read == 0)
    {
      if (state->in_payload || state->header_length > 0)
        exec_start_check_engine (task, g_error_new (WARDEN_DOCKER_ERROR,
                                                    WARDEN_DOCKER_ERROR_PROTOCOL,
                                                    _("The output of exec %s ended in the "
                                                      "middle of a frame"),
                                                    state->exec_id));
      else
        exec_start_check_engine (task, NULL);
      return;
    }

  if (!exec_start_feed (state, state->buffer, n_read, &error))
    {
      exec_start_stop (task, g_steal_pointer (&error));
      return;
    }

  exec_start_read_next (g_steal_pointer (&task));
}

static void
exec_start_read_next (GTask *task)
{
  ExecStart *state = g_task_get_task_data (task);

  g_input_stream_read_async (state->input, state->buffer, READ_SIZE, G_PRIORITY_DEFAULT,
                             g_task_get_cancellable (task), exec_start_read_cb, task);
}

static void
exec_start_begin_reading (GTask *task)
{
  ExecStart *state = g_task_get_task_data (task);

  state->buffer = g_malloc (READ_SIZE);
  state->frame = g_byte_array_new ();
  state->reading = TRUE;
  exec_start_read_next (g_object_ref (task));
}

static void
exec_start_error_body_cb (GObject      *object,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ExecStart *state = g_task_get_task_data (task);
  g_autoptr(GBytes) body = NULL;

  body = read_body_finish (result, NULL);
  if (g_task_return_error_if_cancelled (task))
    return;

  exec_start_close (state);
  g_task_return_error (task, error_from_answer (state->status, NULL, state->what, body));
}

static void
exec_start_send_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerClient *self = g_task_get_source_object (task);
  ExecStart *state = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  guint status;

  state->input = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  if (state->input == NULL)
    {
      g_task_return_error (task, error_from_transport (self, state->what, error));
      return;
    }

  status = soup_message_get_status (state->msg);
  if (status >= 400)
    {
      state->status = status;
      read_body_async (state->input, MAX_ERROR_BODY, cancellable,
                       exec_start_error_body_cb, g_steal_pointer (&task));
      return;
    }

  exec_start_begin_reading (task);
}

static void
exec_start_stdin_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ExecStart *state = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  /* A command that exits without reading all its input makes the engine
   * close the connection: not an error, the output says what happened. */
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    g_debug ("Writing the standard input of exec %s stopped: %s",
             state->exec_id, error->message);
  else if (!g_socket_shutdown (g_socket_connection_get_socket (state->connection),
                               FALSE, TRUE, &error))
    g_debug ("Could not half-close the connection of exec %s: %s",
             state->exec_id, error->message);

  state->writing = FALSE;
  exec_start_complete (task);
}

static void
exec_start_hijacked (GTask *task)
{
  ExecStart *state = g_task_get_task_data (task);
  GOutputStream *output = g_io_stream_get_output_stream (G_IO_STREAM (state->connection));

  state->input = g_object_ref (G_INPUT_STREAM (state->lines));

  /* Write and read at once: a command that prints while it reads would
   * otherwise fill the pipe and wait for us while we wait for it. */
  state->write_cancellable = g_cancellable_new ();
  state->writing = TRUE;
  g_output_stream_write_all_async (output,
                                   g_bytes_get_data (state->stdin_data, NULL),
                                   g_bytes_get_size (state->stdin_data),
                                   G_PRIORITY_DEFAULT, state->write_cancellable,
                                   exec_start_stdin_cb, g_object_ref (task));

  exec_start_begin_reading (task);
}

static void
exec_start_header_line_cb (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerClient *self = g_task_get_source_object (task);
  ExecStart *state = g_task_get_task_data (task);
  g_autoptr(SoupMessageHeaders) headers = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *reason = NULL;
  guint status;
  gsize length;

  line = g_data_input_stream_read_line_finish (state->lines, result, &length, &error);
  if (error != NULL)
    {
      g_task_return_error (task, error_from_transport (self, state->what, error));
      return;
    }

  if (line == NULL)
    {
      g_task_return_new_error (task, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_NOT_RUNNING,
                               _("The Docker engine at %s closed the connection before "
                                 "answering %s: check that it is still running"),
                               self->host, state->what);
      return;
    }

  if (length > 0 && line[length - 1] == '\r')
    line[--length] = '\0';

  g_string_append_len (state->headers, line, length);
  g_string_append (state->headers, "\r\n");

  if (state->headers->len > MAX_HEADERS_SIZE)
    {
      g_task_return_new_error (task, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                               _("The Docker engine's answer to %s has too long headers"),
                               state->what);
      return;
    }

  if (length > 0)
    {
      g_data_input_stream_read_line_async (state->lines, G_PRIORITY_DEFAULT,
                                           cancellable,
                                           exec_start_header_line_cb, g_steal_pointer (&task));
      return;
    }

  headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE);
  if (!soup_headers_parse_response (state->headers->str, state->headers->len, headers,
                                    NULL, &status, &reason))
    {
      g_task_return_new_error (task, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                               _("Could not read the Docker engine's answer to %s: it is "
                                 "not HTTP"),
                               state->what);
      return;
    }

  if (status == SOUP_STATUS_SWITCHING_PROTOCOLS || status == SOUP_STATUS_OK)
    {
      exec_start_hijacked (task);
      return;
    }

  if (status >= 400)
    {
      goffset length_header = -1;

      if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH)
        length_header = soup_message_headers_get_content_length (headers);

      /* The connection stays open after an error with a length: read no more. */
      if (length_header > 0)
        {
          state->status = status;
          read_body_async (G_INPUT_STREAM (state->lines), MIN (length_header, MAX_ERROR_BODY),
                           cancellable,
                           exec_start_error_body_cb, g_steal_pointer (&task));
          return;
        }

      exec_start_close (state);
      g_task_return_error (task, error_from_answer (status, reason, state->what, NULL));
      return;
    }

  g_task_return_new_error (task, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_PROTOCOL,
                           _("The Docker engine answered %s with the unexpected HTTP %u %s"),
                           state->what, status, reason ? reason : "");
}

static void
exec_start_request_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerClient *self = g_task_get_source_object (task);
  ExecStart *state = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  GInputStream *input;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    {
      g_task_return_error (task, error_from_transport (self, state->what, error));
      return;
    }

  input = g_io_stream_get_input_stream (G_IO_STREAM (state->connection));
  state->lines = g_data_input_stream_new (input);
  g_data_input_stream_set_newline_type (state->lines, G_DATA_STREAM_NEWLINE_TYPE_LF);
  state->headers = g_string_new (NULL);

  g_data_input_stream_read_line_async (state->lines, G_PRIORITY_DEFAULT,
                                       cancellable,
                                       exec_start_header_line_cb, g_steal_pointer (&task));
}

static void
exec_start_connect_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GCancellable *cancellable = g_task_get_cancellable (task);
  WardenDockerClient *self = g_task_get_source_object (task);
  ExecStart *state = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *escaped = NULL;
  g_autoptr(GString) request = NULL;
  GOutputStream *output;
  static const char body[] = "{\"Detach\":false,\"Tty\":false}";

  state->connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (object), result, &error);
  if (state->connection == NULL)
    {
      g_task_return_error (task, error_from_transport (self, state->what, error));
      return;
    }

  escaped = escape_value (state->exec_id);
  request = g_string_new (NULL);
  g_string_append_printf (request,
                          "POST " API_PREFIX "/exec/%s/start HTTP/1.1\r\n"
                          "Host: %s\r\n"
                          "User-Agent: " USER_AGENT "\r\n"
                          "Content-Type: application/json\r\n"
                          "Content-Length: %zu\r\n"
                          "Connection: Upgrade\r\n"
                          "Upgrade: tcp\r\n"
                          "\r\n"
                          "%s",
                          escaped, self->host_header, strlen (body), body);
  state->request = g_string_free_to_bytes (g_steal_pointer (&request));

  output = g_io_stream_get_output_stream (G_IO_STREAM (state->connection));
  g_output_stream_write_all_async (output,
                                   g_bytes_get_data (state->request, NULL),
                                   g_bytes_get_size (state->request),
                                   G_PRIORITY_DEFAULT, cancellable,
                                   exec_start_request_cb, g_steal_pointer (&task));
}

void
warden_docker_client_exec_start_async (WardenDockerClient     *self,
                                       const char             *exec_id,
                                       GBytes                 *stdin_data,
                                       WardenDockerOutputFunc  output,
                                       gpointer                output_data,
                                       GCancellable           *cancellable,
                                       GAsyncReadyCallback     callback,
                                       gpointer                user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;
  ExecStart *state;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (exec_id != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_docker_client_exec_start_async);

  escaped = escape_value (exec_id);
  path = g_strdup_printf ("/exec/%s/start", escaped);

  state = g_new0 (ExecStart, 1);
  state->exec_id = g_strdup (exec_id);
  state->exit_code = -1;
  state->what = describe_request ("POST", path);
  state->stdin_data = stdin_data ? g_bytes_ref (stdin_data) : NULL;
  state->output = output;
  state->output_data = output_data;
  g_task_set_task_data (task, state, exec_start_free);

  if (stdin_data != NULL)
    {
      g_autoptr(GSocketClient) client = NULL;

      /* The hijacked connection is written by hand, and TLS by hand is not worth it. */
      if (self->certificate != NULL)
        {
          g_task_return_new_error (task, WARDEN_DOCKER_ERROR, WARDEN_DOCKER_ERROR_API,
                                   _("Standard input is not supported over TLS (%s): run the "
                                     "command without input, or use a local Docker engine"),
                                   self->host);
          return;
        }

      client = g_socket_client_new ();
      g_socket_client_set_enable_proxy (client, FALSE);
      g_socket_client_connect_async (client, self->connectable, cancellable,
                                     exec_start_connect_cb, g_steal_pointer (&task));
      return;
    }

  /* No Upgrade headers: the engine then answers 200 with the frames as a
   * body that ends when the command does, which libsoup reads happily. */
  {
    g_autoptr(JsonBuilder) builder = json_builder_new ();
    g_autoptr(JsonNode) body = NULL;

    json_builder_begin_object (builder);
    json_builder_set_member_name (builder, "Detach");
    json_builder_add_boolean_value (builder, FALSE);
    json_builder_set_member_name (builder, "Tty");
    json_builder_add_boolean_value (builder, FALSE);
    json_builder_end_object (builder);
    body = json_builder_get_root (builder);

    state->msg = message_new (self, "POST", path, body);
  }

  soup_session_send_async (self->session, state->msg, G_PRIORITY_DEFAULT, cancellable,
                           exec_start_send_cb, g_steal_pointer (&task));
}

gboolean
warden_docker_client_exec_start_finish_with_status (WardenDockerClient  *self,
                                                    GAsyncResult        *result,
                                                    int                 *exit_code,
                                                    GError             **error)
{
  ExecStart *state;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  state = g_task_get_task_data (G_TASK (result));
  if (exit_code != NULL)
    *exit_code = state->exit_code;
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
warden_docker_client_exec_start_finish (WardenDockerClient  *self,
                                        GAsyncResult        *result,
                                        GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

typedef struct
{
  int      exit_code;
  gboolean running;
  gint64   pid;       /* on the engine's machine; 0: not known */
} ExecState;

static void
exec_inspect_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  ExecState *exec_state;
  JsonObject *json;

  node = call_finish_json (result, &error);
  if (node == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  json = node_get_object (node, call_get_what (result), &error);
  if (json == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  exec_state = g_new0 (ExecState, 1);
  exec_state->running = warden_json_get_boolean (json, "Running", FALSE);
  /* The code is null until the command has exited. */
  exec_state->exit_code = exec_state->running ? -1
                                              : (int) warden_json_get_int (json, "ExitCode", -1);
  exec_state->pid = (gint64) warden_json_get_int (json, "Pid", 0);

  g_task_return_pointer (task, exec_state, g_free);
}

void
warden_docker_client_exec_inspect_async (WardenDockerClient  *self,
                                         const char          *exec_id,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;
  GTask *task;

  g_return_if_fail (WARDEN_IS_DOCKER_CLIENT (self));
  g_return_if_fail (exec_id != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, warden_docker_client_exec_inspect_async);

  escaped = escape_value (exec_id);
  path = g_strdup_printf ("/exec/%s/json", escaped);
  call_async (self, "GET", path, NULL, cancellable, exec_inspect_cb, task);
}

gboolean
warden_docker_client_exec_inspect_finish (WardenDockerClient  *self,
                                          GAsyncResult        *result,
                                          int                 *exit_code,
                                          gboolean            *running,
                                          GError             **error)
{
  return warden_docker_client_exec_inspect_finish_with_pid (self, result, exit_code, running,
                                                            NULL, error);
}

gboolean
warden_docker_client_exec_inspect_finish_with_pid (WardenDockerClient  *self,
                                                   GAsyncResult        *result,
                                                   int                 *exit_code,
                                                   gboolean            *running,
                                                   gint64              *pid,
                                                   GError             **error)
{
  g_autofree ExecState *exec_state = NULL;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  exec_state = g_task_propagate_pointer (G_TASK (result), error);
  if (exec_state == NULL)
    return FALSE;

  if (exit_code != NULL)
    *exit_code = exec_state->exit_code;
  if (running != NULL)
    *running = exec_state->running;
  if (pid != NULL)
    *pid = exec_state->pid;

  return TRUE;
}
