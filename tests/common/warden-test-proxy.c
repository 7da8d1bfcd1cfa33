/* warden-test-proxy.c: a Docker engine that goes away when a test says so
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "warden-test-proxy.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <string.h>


typedef struct
{
  WardenTestProxy   *proxy;
  GSocketConnection *down;       /* the client's */
  GSocketConnection *up;         /* to the engine */
  GCancellable      *cancellable;
  guint              pumps;
} ProxyPair;

typedef struct
{
  ProxyPair     *pair;
  GInputStream  *in;
  GOutputStream *out;
  gboolean       to_client;
  guint8         buffer[65536];
} ProxyPump;

static void              proxy_pump_read (ProxyPump     *pump);

static void
proxy_pair_close (ProxyPair *pair)
{
  g_cancellable_cancel (pair->cancellable);
  g_io_stream_close (G_IO_STREAM (pair->down), NULL, NULL);
  g_io_stream_close (G_IO_STREAM (pair->up), NULL, NULL);
}

static void
proxy_pump_done (ProxyPump *pump)
{
  ProxyPair *pair = pump->pair;

  g_free (pump);
  proxy_pair_close (pair);
  if (--pair->pumps > 0)
    return;
  g_ptr_array_remove (pair->proxy->pairs, pair);
  g_object_unref (pair->down);
  g_object_unref (pair->up);
  g_object_unref (pair->cancellable);
  g_free (pair);
}

static void
proxy_written_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  ProxyPump *pump = user_data;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, NULL))
    proxy_pump_done (pump);
  else
    proxy_pump_read (pump);
}

static void
proxy_half_written_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, NULL);
  proxy_pump_done (user_data);
}

static void
proxy_read_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  ProxyPump *pump = user_data;
  WardenTestProxy *proxy = pump->pair->proxy;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, NULL);

  if (n <= 0)
    {
      proxy_pump_done (pump);
      return;
    }
  if (pump->to_client && proxy->cut_next)
    {
      /* Half a frame header, then nothing: the connection broke. */
      proxy->cut_next = FALSE;
      g_output_stream_write_all_async (pump->out, pump->buffer, MIN (n, 4), G_PRIORITY_DEFAULT,
                                       pump->pair->cancellable, proxy_half_written_cb, pump);
      return;
    }
  g_output_stream_write_all_async (pump->out, pump->buffer, n, G_PRIORITY_DEFAULT,
                                   pump->pair->cancellable, proxy_written_cb, pump);
}

static void
proxy_pump_read (ProxyPump *pump)
{
  g_input_stream_read_async (pump->in, pump->buffer, sizeof pump->buffer, G_PRIORITY_DEFAULT,
                             pump->pair->cancellable, proxy_read_cb, pump);
}

static void
proxy_pump_start (ProxyPair          *pair,
                  GSocketConnection *from,
                  GSocketConnection *to,
                  gboolean           to_client)
{
  ProxyPump *pump = g_new0 (ProxyPump, 1);

  pump->pair = pair;
  pump->in = g_io_stream_get_input_stream (G_IO_STREAM (from));
  pump->out = g_io_stream_get_output_stream (G_IO_STREAM (to));
  pump->to_client = to_client;
  pair->pumps++;
  proxy_pump_read (pump);
}

/* Where the tests' engine listens. */
const char *
warden_test_engine_socket (void)
{
  const char *host = g_getenv ("DOCKER_HOST");

  return host && g_str_has_prefix (host, "unix://") ? host + strlen ("unix://")
                                                   : "/var/run/docker.sock";
}

static gboolean
proxy_incoming_cb (GSocketService    *service,
                   GSocketConnection *connection,
                   GObject           *source,
                   gpointer           user_data)
{
  WardenTestProxy *proxy = user_data;
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (proxy->upstream);
  GSocketConnection *upstream = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address),
                                                         NULL, NULL);
  ProxyPair *pair;

  if (upstream == NULL)
    return FALSE;
  pair = g_new0 (ProxyPair, 1);
  pair->proxy = proxy;
  pair->down = g_object_ref (connection);
  pair->up = upstream;
  pair->cancellable = g_cancellable_new ();
  g_ptr_array_add (proxy->pairs, pair);
  proxy_pump_start (pair, pair->down, pair->up, FALSE);
  proxy_pump_start (pair, pair->up, pair->down, TRUE);
  return TRUE;
}

/* Listens at the proxy's path (again): the engine is back. */
void
warden_test_proxy_start (WardenTestProxy *proxy)
{
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (proxy->path);
  g_autoptr(GError) error = NULL;

  g_unlink (proxy->path);
  proxy->service = g_socket_service_new ();
  g_socket_listener_add_address (G_SOCKET_LISTENER (proxy->service), address,
                                 G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL,
                                 &error);
  g_assert_no_error (error);
  g_signal_connect (proxy->service, "incoming", G_CALLBACK (proxy_incoming_cb), proxy);
  g_socket_service_start (proxy->service);
}

WardenTestProxy *
warden_test_proxy_new (void)
{
  WardenTestProxy *proxy = g_new0 (WardenTestProxy, 1);

  /* Taken now: a test may point DOCKER_HOST at the proxy itself. */
  proxy->upstream = g_strdup (warden_test_engine_socket ());
  proxy->dir = g_dir_make_tmp ("warden-test-proxy-XXXXXX", NULL);
  proxy->path = g_build_filename (proxy->dir, "docker.sock", NULL);
  proxy->host = g_strdup_printf ("unix://%s", proxy->path);
  proxy->pairs = g_ptr_array_new ();
  warden_test_proxy_start (proxy);
  return proxy;
}

/* Nothing listens any more, and every connection breaks. */
void
warden_test_proxy_kill (WardenTestProxy *proxy)
{
  if (proxy->service != NULL)
    {
      g_socket_service_stop (proxy->service);
      g_socket_listener_close (G_SOCKET_LISTENER (proxy->service));
      g_clear_object (&proxy->service);
    }
  for (guint i = 0; i < proxy->pairs->len; i++)
    proxy_pair_close (g_ptr_array_index (proxy->pairs, i));
}

void
warden_test_proxy_free (WardenTestProxy *proxy)
{
  warden_test_proxy_kill (proxy);
  while (proxy->pairs->len > 0)
    g_main_context_iteration (NULL, TRUE);
  g_ptr_array_unref (proxy->pairs);
  g_unlink (proxy->path);
  g_rmdir (proxy->dir);
  g_free (proxy->dir);
  g_free (proxy->path);
  g_free (proxy->host);
  g_free (proxy->upstream);
  g_free (proxy);
}

