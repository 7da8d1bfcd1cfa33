/* warden-restore.c: a session's checkpoints, as the front ends name and show them
 *
 * Copyright 2026 The Warden authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#define G_LOG_DOMAIN "warden-agent"

#include <glib/gi18n.h>

#include "warden-restore.h"

#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "common/warden-json.h"
#include "common/warden-printable.h"

WardenCheckpointRecord *
warden_restore_find_step (WardenSessionStore  *store,
                          const char          *session_id,
                          const char          *step,
                          GError             **error)
{
  g_autoptr(GPtrArray) list = NULL;
  char *end = NULL;
  gint64 number;

  g_return_val_if_fail (step != NULL, NULL);

  if ((list = warden_session_store_list_checkpoints (store, session_id, error)) == NULL)
    return NULL;
  number = g_ascii_strtoll (step, &end, 10);
  for (guint i = 0; i < list->len; i++)
    {
      WardenCheckpointRecord *r = g_ptr_array_index (list, i);

      if ((end != step && *end == '\0' && r->step == number) ||
          g_strcmp0 (r->tool_use_id, step) == 0)
        return g_ptr_array_steal_index (list, i);
    }
  if (list->len == 0)
    g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND,
                 _("Session “%s” has no checkpoints: its files were never changed by a step "
                   "of Warden, or it was made by a Warden without checkpoints"), session_id);
  else
    {
      g_autofree char *shown = warden_printable (step, -1, WARDEN_PRINTABLE_ONE_LINE);

      g_set_error (error, WARDEN_STORE_ERROR, WARDEN_STORE_ERROR_NOT_FOUND,
                   _("Session “%s” has no step “%s”: its steps are 1 to %lld (warden-cli "
                     "sessions show %s lists them), or a tool call's id"),
                   session_id, shown,
                   (long long) ((WardenCheckpointRecord *)
                                g_ptr_array_index (list, list->len - 1))->step,
                   session_id);
    }
  return NULL;
}

void
warden_restore_add_changes (JsonBuilder *b,
                            GPtrArray   *changes)
{
  json_builder_begin_array (b);
  for (guint i = 0; changes != NULL && i < changes->len; i++)
    {
      WardenFileChange *c = g_ptr_array_index (changes, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, warden_file_change_kind_to_string (c->kind));
      json_builder_set_member_name (b, "path");
      json_builder_add_string_value (b, c->path);
      json_builder_set_member_name (b, "binary");
      json_builder_add_boolean_value (b, c->binary);
      if (c->skipped)
        {
          json_builder_set_member_name (b, "skipped");
          json_builder_add_boolean_value (b, TRUE);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

char *
warden_restore_changes_to_json (GPtrArray *changes)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  warden_restore_add_changes (b, changes);
  return warden_json_builder_to_string (b, FALSE);
}

GPtrArray *
warden_restore_changes_from_json (const char *json)
{
  g_autoptr(JsonNode) node = json != NULL ? json_from_string (json, NULL) : NULL;
  GPtrArray *changes;
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  array = json_node_get_array (node);
  changes = g_ptr_array_new_with_free_func ((GDestroyNotify) warden_file_change_free);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      WardenFileChange *c;
      WardenFileChangeKind kind;
      JsonObject *o;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        continue;
      o = json_node_get_object (item);
      if (warden_json_get_string (o, "path") == NULL ||
          !warden_file_change_kind_from_string (warden_json_get_string (o, "kind"), &kind))
        continue;
      c = g_new0 (WardenFileChange, 1);
      c->kind = kind;
      c->path = g_strdup (warden_json_get_string (o, "path"));
      c->binary = warden_json_get_boolean (o, "binary", FALSE);
      c->skipped = warden_json_get_boolean (o, "skipped", FALSE);
      g_ptr_array_add (changes, c);
    }
  return changes;
}

char *
warden_restore_describe_changes (GPtrArray  *changes,
                                 const char *indent)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; changes != NULL && i < changes->len; i++)
    {
      WardenFileChange *c = g_ptr_array_index (changes, i);
      g_autofree char *path = warden_printable (c->path, -1, WARDEN_PRINTABLE_ONE_LINE);

      g_string_append_printf (out, "%s%s %s%s%s\n", indent ? indent : "",
                              warden_file_change_kind_to_string (c->kind), path,
                              c->binary ? " (binary)" : "",
                              c->skipped ? " (left as it is: a protected path)" : "");
    }
  return g_string_free (out, FALSE);
}

gint64
warden_restore_record (WardenSessionStore  *store,
                       const char          *session_id,
                       const char          *undo,
                       gint64               restored_to,
                       GError             **error)
{
  return warden_session_store_add_checkpoint (store, session_id, NULL, undo, restored_to, error);
}

gboolean
warden_restore_run (WardenSessionStore      *store,
                    const char              *session_id,
                    const char              *workspace,
                    WardenCheckpointRecord  *step,
                    gint64                  *new_step,
                    GPtrArray              **changes,
                    GError                 **error)
{
  g_autoptr(WardenCheckpoints) cp = NULL;
  g_autoptr(GError) failed = NULL;
  g_autofree char *undo = NULL;
  gint64 recorded;

  if ((cp = warden_checkpoints_new (workspace, NULL, error)) == NULL)
    return FALSE;
  warden_checkpoints_restore (cp, step->commit, &undo, changes, &failed);
  if (undo == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&failed));
      return FALSE;
    }
  /* Half done is undone the same way: the checkpoint before it is kept. */
  recorded = warden_restore_record (store, session_id, undo, step->step,
                                    failed == NULL ? error : NULL);
  if (new_step != NULL)
    *new_step = recorded;
  if (failed != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&failed));
      return FALSE;
    }
  return recorded != 0;
}

char *
warden_restore_take_note (WardenSessionStore  *store,
                          const char          *session_id,
                          GError             **error)
{
  g_autoptr(GPtrArray) list = NULL;
  GString *note = NULL;

  if ((list = warden_session_store_list_checkpoints (store, session_id, error)) == NULL)
    return NULL;
  for (guint i = 0; i < list->len; i++)
    {
      WardenCheckpointRecord *r = g_ptr_array_index (list, i);
      WardenCheckpointRecord *to = NULL;

      if (r->tool_use_id != NULL || r->told)
        continue;
      for (guint j = 0; j < list->len; j++)
        if (((WardenCheckpointRecord *) g_ptr_array_index (list, j))->step == r->restored_to)
          to = g_ptr_array_index (list, j);
      if (note == NULL)
        note = g_string_new (NULL);
      if (to != NULL && to->tool_use_id != NULL)
        g_string_append_printf (note, "[Warden: the user restored the workspace's files to how "
                                "they were before step %" G_GINT64_FORMAT " (your tool call %s). "
                                "What that call and every later step changed in the files is "
                                "undone; read the files again before you rely on them.]\n",
                                r->restored_to, to->tool_use_id);
      else
        g_string_append_printf (note, "[Warden: the user undid a restore: the workspace's files "
                                "are as they were before step %" G_GINT64_FORMAT ". Read the "
                                "files again before you rely on them.]\n", r->restored_to);
      if (!warden_session_store_set_checkpoint_told (store, session_id, r->step, error))
        {
          g_string_free (note, TRUE);
          return NULL;
        }
    }
  return note ? g_string_free (note, FALSE) : NULL;
}
