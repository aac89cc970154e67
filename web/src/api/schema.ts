// Generated from the server's OpenAPI document by `npm run gen:api`. Do not edit.
/* eslint-disable */
export interface paths {
    "/api/admin/ontologies/{ontology_id}/backfill-embeddings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Backfill Embeddings
         * @description Embed an ontology's datasets again (any user's): what `dataagent ontology backfill`
         *     does for stale ones. Answers when the build has ended, `ready` or `failed`.
         */
        post: operations["backfillOntologyEmbeddings"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/agent/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat
         * @description Answer the conversation's last question about one of the caller's ontologies, streamed.
         *
         *     Nothing is stored but the model calls' traces and any charts; the client keeps the
         *     conversation and sends it whole each time. One such chat per person at a time (429).
         *     Without `ontologyId`: the caller's default ontology, else their only ready one.
         */
        post: operations["statelessChat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Login
         * @description Exchange email and password for a token (also set as an HttpOnly cookie).
         */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Logout
         * @description Clear the session cookie; with a valid token, also sign that user out everywhere.
         *     Their stateless chats end (no token is left to read them); their answers go on.
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Me
         * @description The signed-in user and their permissions.
         */
        get: operations["me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Session State
         * @description Who is signed in, or `user: null`: the page asks this first, so a signed-out visit
         *     gets a 200 rather than a 401 (which a browser reports as an error in its console).
         */
        get: operations["session"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/charts/{chart_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Chart
         * @description A chart's title, image URL, media type, Vega-Lite spec and message.
         */
        get: operations["getChart"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/charts/{chart_id}.png": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Chart Image
         * @description The chart's image bytes (PNG, or the type run_python drew).
         */
        get: operations["getChartImage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat
         * @description Answer a question with a query (a QueryPlan; SQL only when the message asks for SQL).
         *
         *     With no language model configured, the offline planner answers, or abstains (200,
         *     `status` `abstained`, no rows). A refused statement is 400 SQL_POLICY_VIOLATION, a query
         *     that takes too long 408 RUNNER_TIMEOUT. The query's run capsule is `GET /api/runs/{runId}`.
         */
        post: operations["agentServerChat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chat/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat Stream
         * @description The same answer as `POST /api/chat`, as Server-Sent Events: `status` (planning,
         *     validating, executing), `result`, `done`; or `error` {code, message} when it fails.
         */
        post: operations["agentServerChatStream"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/connections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Connections
         * @description The caller's connections.
         */
        get: operations["listConnections"];
        put?: never;
        /**
         * Create Connection
         * @description Store a connection; its credentials are encrypted at rest.
         */
        post: operations["createConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/connections/{connection_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Connection
         * @description One of the caller's connections.
         */
        get: operations["getConnection"];
        put?: never;
        post?: never;
        /**
         * Delete Connection
         * @description Delete a connection.
         */
        delete: operations["deleteConnection"];
        options?: never;
        head?: never;
        /**
         * Update Connection
         * @description Rename a connection or change its credentials.
         */
        patch: operations["updateConnection"];
        trace?: never;
    };
    "/api/connections/{connection_id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check Connection
         * @description Try to reach the database; report its version or a sanitised error.
         */
        post: operations["testConnection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/chats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Chats
         * @description The caller's chats, with message counts.
         */
        get: operations["listChats"];
        put?: never;
        /**
         * Create Chat
         * @description Start a chat on a ready ontology the caller reaches, theirs or shared with them (409
         *     for a provider not enabled), answering in the mode asked for, else the server's default.
         */
        post: operations["createChat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/chats/{chat_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Chat
         * @description One of the caller's chats with its messages.
         */
        get: operations["getChat"];
        put?: never;
        post?: never;
        /**
         * Delete Chat
         * @description Delete a chat and its messages.
         */
        delete: operations["deleteChat"];
        options?: never;
        head?: never;
        /**
         * Update Chat
         * @description Rename a chat, or change its LLM provider (409 for a provider not enabled) or its
         *     answer mode (the next answer uses it).
         */
        patch: operations["updateChat"];
        trace?: never;
    };
    "/api/data-agent/chats/{chat_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Messages
         * @description One page of a chat's messages, oldest first.
         */
        get: operations["listMessages"];
        put?: never;
        /**
         * Send Message
         * @description Store a question and the assistant's placeholder in one transaction (503, storing
         *     nothing, when no model can answer the chat).
         */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/chats/{chat_id}/messages/{message_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Message
         * @description One message of one of the caller's chats (404 for one not yours or of another chat).
         */
        get: operations["getMessage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/chats/{chat_id}/messages/{message_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel Message
         * @description Stop the answer: it ends failed (CANCELLED) and the message keeps its partial text.
         */
        post: operations["cancelMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/chats/{chat_id}/messages/{message_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Message Events
         * @description Replay the answer's events after `Last-Event-ID` (or `after`), then follow it live
         *     until it ends. A finished answer is replayed, never run again.
         */
        get: operations["streamMessageEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/chats/{chat_id}/messages/{message_id}/regenerate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Regenerate Message
         * @description Ask a finished or failed answer's question again: a new placeholder for it, answered
         *     like a new question's (stream it); the old answer stays. 409 while it is generating.
         */
        post: operations["regenerateMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/chats/{chat_id}/messages/{message_id}/report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Message Report
         * @description A complete answer as a report: narrative, tables, charts, lineage, assumptions,
         *     caveats, verification and SQL as blocks; or (`format=html`) as one HTML file.
         */
        get: operations["getMessageReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/chats/{chat_id}/messages/{message_id}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stream Message
         * @description Claim the assistant message, start answering it, and stream the run's events.
         *
         *     The answer runs on without the connection; resume with `Last-Event-ID` (here, or on
         *     `.../events`). A second claim of the same message is a 409.
         */
        post: operations["streamMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/chats/{chat_id}/messages/{message_id}/traces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Traces
         * @description Every model call made for one of the caller's messages, in call order (seed 001).
         */
        get: operations["listMessageTraces"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Preferences
         * @description The caller's preferences, global ones first: `global` (no ontology), `ontology` (that
         *     ontology's: `ontologyId` required, else 400) or `all` (with `ontologyId`, the global ones
         *     and that ontology's; without, every one). 404 for an ontology not the caller's.
         */
        get: operations["listPreferences"];
        put?: never;
        /**
         * Save Preference
         * @description Store a preference, or replace the value (and source) of the caller's one with that key
         *     in that scope (an upsert: 201 either way). 404 for an ontology not the caller's.
         */
        post: operations["savePreference"];
        /**
         * Clear Preferences
         * @description Delete the caller's preferences of one ontology, or, without `ontologyId`, all of them
         *     (global ones included). 404 for an ontology not the caller's.
         */
        delete: operations["clearPreferences"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/data-agent/preferences/{preference_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete Preference
         * @description Delete one of the caller's preferences.
         */
        delete: operations["deletePreference"];
        options?: never;
        head?: never;
        /**
         * Update Preference
         * @description Give one of the caller's preferences a new value.
         */
        patch: operations["updatePreference"];
        trace?: never;
    };
    "/api/data-agent/stream/{message_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stream Message By Id
         * @description Seed 001's form of `.../messages/{messageId}/stream`: the chat is the message's.
         */
        post: operations["streamMessageById"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/datasets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Datasets
         * @description The caller's datasets.
         */
        get: operations["listDatasets"];
        put?: never;
        /**
         * Upload Dataset
         * @description Load CSV, Parquet or Excel files into a new dataset (one table per file or sheet).
         */
        post: operations["uploadDataset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/datasets/{dataset_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete Dataset
         * @description Delete a dataset, its connection and its files.
         */
        delete: operations["deleteDataset"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/datasets/{dataset_id}/schema": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Dataset Schema
         * @description Tables, columns and types, with up to `sampleRows` rows of each table.
         */
        get: operations["getDatasetSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Groups
         * @description Every group, by name, each with its member count.
         */
        get: operations["listGroups"];
        put?: never;
        /**
         * Create Group
         * @description Create an empty group; its name must be unique (ignoring case).
         */
        post: operations["createGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/groups/{group_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Group
         * @description One group.
         */
        get: operations["getGroup"];
        put?: never;
        post?: never;
        /**
         * Delete Group
         * @description Delete a group: its members leave it, and its shares are revoked with it.
         */
        delete: operations["deleteGroup"];
        options?: never;
        head?: never;
        /**
         * Update Group
         * @description Rename a group or change its description.
         */
        patch: operations["updateGroup"];
        trace?: never;
    };
    "/api/groups/{group_id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Members
         * @description The group's members, by email.
         */
        get: operations["listGroupMembers"];
        /**
         * Set Members
         * @description Set the group's whole list of members (404 naming ids that belong to no user); in
         *     force on the members' next request.
         */
        put: operations["setGroupMembers"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health
         * @description 200 when the app database is reachable, 503 otherwise.
         */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/llm/default-provider": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set Default Provider
         * @description Set the provider the caller's new chats start with (null: the system default).
         */
        put: operations["setDefaultLlmProvider"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/llm/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Providers
         * @description The enabled providers with their models, the caller's default and the system's.
         */
        get: operations["listLlmProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/me/default-ontology": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set Default Ontology
         * @description Set the ontology the caller's stateless chat asks about when a request names none
         *     (null clears it); 404 for an ontology that is not theirs. The caller, as `GET
         *     /api/auth/me` shows them.
         */
        put: operations["setDefaultOntology"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Ontologies
         * @description The ontologies the caller reaches: their own, and those shared with them (each says
         *     which, and who owns it).
         */
        get: operations["listOntologies"];
        put?: never;
        /**
         * Create Ontology
         * @description Start building an ontology; it is `building` until it turns `ready` or `failed`.
         */
        post: operations["createOntology"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Ontology
         * @description One ontology the caller reaches (theirs or shared with them) and its status.
         */
        get: operations["getOntology"];
        put?: never;
        post?: never;
        /**
         * Delete Ontology
         * @description Delete an ontology and its chats.
         */
        delete: operations["deleteOntology"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/build/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Build Events
         * @description Replay the ontology's latest build's events after `Last-Event-ID` (or `after`), then
         *     follow it live until it ends (`build_complete` or `build_error`).
         */
        get: operations["streamOntologyBuildEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/compile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Compile Query
         * @description Compile a QueryPlan to SQL for the ontology's dialect; `execute: true` also runs it.
         */
        post: operations["compilePlan"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/datasets/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Dataset
         * @description A dataset's YAML, fields and relationships.
         */
        get: operations["getOntologyDataset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/graph": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Graph
         * @description Datasets as nodes and relationships as edges.
         */
        get: operations["getOntologyGraph"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/join-paths": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join Paths
         * @description Up to 3 shortest paths between two datasets, or the connecting tree of 3 or more.
         */
        post: operations["findJoinPaths"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/rebuild": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rebuild Ontology
         * @description Rebuild from the current semantic model (picks up YAML edits, re-embeds).
         */
        post: operations["rebuildOntology"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search
         * @description The datasets and metrics of this ontology most relevant to a question (k of each).
         */
        get: operations["searchOntology"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/shares": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Shares
         * @description Who the ontology is shared with, oldest share first.
         */
        get: operations["listOntologyShares"];
        put?: never;
        /**
         * Create Share
         * @description Share the ontology with a user or a group, optionally under a PostgreSQL role
         *     (checked against the database now, and at each query).
         */
        post: operations["createOntologyShare"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/shares/{share_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete Share
         * @description Revoke a share: in force on the grantee's next request, on every server.
         */
        delete: operations["deleteOntologyShare"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ontologies/{ontology_id}/suggestions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Suggestions
         * @description Questions to ask about this ontology, drawn from its semantic model (the same every time).
         */
        get: operations["getOntologySuggestions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run Query
         * @description Run one read-only statement; a policy violation is a 400 SQL_POLICY_VIOLATION.
         */
        post: operations["runQuery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Run
         * @description One of the caller's run capsules (query records).
         */
        get: operations["getRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/semantic-models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Models
         * @description The caller's semantic models.
         */
        get: operations["listSemanticModels"];
        put?: never;
        /**
         * Create Model
         * @description Introspect a connection and generate its semantic model (deterministic, no LLM).
         */
        post: operations["createSemanticModel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/semantic-models/{model_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Model
         * @description One semantic model with its YAML.
         */
        get: operations["getSemanticModel"];
        put?: never;
        post?: never;
        /**
         * Delete Model
         * @description Delete a semantic model.
         */
        delete: operations["deleteSemanticModel"];
        options?: never;
        head?: never;
        /**
         * Update Model
         * @description Change the name, description or YAML.
         */
        patch: operations["updateSemanticModel"];
        trace?: never;
    };
    "/api/semantic-models/{model_id}/regenerate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Regenerate Model
         * @description Introspect the connection again and merge the new generation into the model: edits,
         *     deletions and additions of yours are kept; the answer lists every change.
         */
        post: operations["regenerateSemanticModel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/llm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Settings
         * @description Every provider's model, temperature and reasoning level (admin only).
         */
        get: operations["getLlmSettings"];
        /**
         * Update Settings
         * @description Replace one provider's model, temperature and reasoning level (admin only).
         */
        put: operations["updateLlmSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Users
         * @description All users, oldest first.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create User
         * @description Create a user with a role.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get User
         * @description One user.
         */
        get: operations["getUser"];
        put?: never;
        post?: never;
        /**
         * Delete User
         * @description Delete a user and everything they own (not yourself, not the last active admin),
         *     once their answers and stateless chats have stopped.
         */
        delete: operations["deleteUser"];
        options?: never;
        head?: never;
        /**
         * Update User
         * @description Change a user's role, active flag or password; never the last active admin away.
         *     Deactivating or a new password also stops the user's answers and stateless chats.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/users/{user_id}/sign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign Out User
         * @description Sign a user out everywhere: every token they hold stops working, and their answers
         *     and stateless chats stop.
         */
        post: operations["signOutUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agent/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat
         * @description Answer the conversation's last question about one of the caller's ontologies, streamed.
         *
         *     Nothing is stored but the model calls' traces and any charts; the client keeps the
         *     conversation and sends it whole each time. One such chat per person at a time (429).
         *     Without `ontologyId`: the caller's default ontology, else their only ready one.
         */
        post: operations["statelessChatV1"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health
         * @description 200 when the app database is reachable, 503 otherwise.
         */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * AgentServerAnswer
         * @description The answer: its text, how it ended (`succeeded`: a query ran; `answered`: the model
         *     replied without one; `abstained`: without a model, the question was not understood well
         *     enough to answer, and `message` says what was understood and what to ask instead), the
         *     thread to continue, and the run capsule (`GET /api/runs/{runId}`) of its query.
         */
        AgentServerAnswer: {
            details: components["schemas"]["AgentServerDetails"];
            /** Message */
            message: string;
            result: components["schemas"]["AgentServerResult"];
            /** Runid */
            runId: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "succeeded" | "answered" | "abstained";
            /**
             * Threadid
             * Format: uuid
             */
            threadId: string;
        };
        /**
         * AgentServerChatRequest
         * @description A question about one of the caller's ontologies or file datasets (exactly one), in a
         *     new thread or continuing `threadId`.
         */
        AgentServerChatRequest: {
            /**
             * Datasetid
             * Format: uuid
             */
            datasetId?: string;
            /** Message */
            message: string;
            /**
             * Ontologyid
             * Format: uuid
             */
            ontologyId?: string;
            /** Threadid */
            threadId?: string | null;
        } & (unknown | unknown);
        /**
         * AgentServerDetails
         * @description How the result was asked for: a QueryPlan compiled to SQL, or SQL as written.
         */
        AgentServerDetails: {
            /** Compiledsql */
            compiledSql: string | null;
            /** Planjson */
            planJson: {
                [key: string]: unknown;
            } | null;
            /**
             * Querymode
             * @description Null when no query ran.
             */
            queryMode: ("sql" | "plan") | null;
        };
        /**
         * AgentServerResult
         * @description The rows of the query that produced the answer (empty when none ran).
         */
        AgentServerResult: {
            /** Columns */
            columns: string[];
            /**
             * Error
             * @description Always null here: a failed query is an error.
             */
            error: string | null;
            /** Exectimems */
            execTimeMs: number;
            /** Rowcount */
            rowCount: number;
            /** Rows */
            rows: unknown[][];
        };
        /**
         * AggregateFilter
         * @description A condition on an output column after aggregation (SQL's HAVING).
         */
        AggregateFilter: {
            /**
             * By
             * @description An output alias, metric name or measure field.
             */
            by: string;
            /**
             * Op
             * @enum {string}
             */
            op: "=" | "!=" | ">" | ">=" | "<" | "<=" | "between";
            /**
             * Value
             * @description A number; a pair for `between`.
             */
            value: number | number[];
        };
        /**
         * AnthropicSettingsUpdate
         * @description Anthropic's settings: `reasoningLevel` is extended thinking, `adaptive` or a budget
         *     of 1024–128000 tokens.
         */
        AnthropicSettingsUpdate: {
            /** Model */
            model?: string | null;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            provider: "anthropic";
            /** Reasoninglevel */
            reasoningLevel?: "adaptive" | number | null;
            /** Temperature */
            temperature?: number | null;
        };
        /**
         * BackfillResult
         * @description The ontology after its datasets were embedded again.
         */
        BackfillResult: {
            ontology: components["schemas"]["OntologyPublic"];
        };
        /** Body_uploadDataset */
        Body_uploadDataset: {
            /** Description */
            description?: string | null;
            /** Files */
            files: string[];
            /** Name */
            name: string;
        };
        /**
         * Cardinality
         * @description How many rows on each side of a relationship match (from -> to).
         * @enum {string}
         */
        Cardinality: "many_to_one" | "one_to_one" | "one_to_many" | "many_to_many";
        /**
         * ChartBlockPublic
         * @description A chart: its image's URL and, for a drawn chart, its Vega-Lite spec (values inline).
         */
        ChartBlockPublic: {
            /**
             * Chartid
             * Format: uuid
             */
            chartId: string;
            /** Charttype */
            chartType: string;
            /** Imageurl */
            imageUrl: string;
            /** Spec */
            spec: {
                [key: string]: unknown;
            } | null;
            /** Title */
            title: string | null;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "chart";
        };
        /**
         * ChartPublic
         * @description A chart: its image's URL, and its Vega-Lite spec when it has one.
         */
        ChartPublic: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Mediatype */
            mediaType: string;
            /** Messageid */
            messageId: string | null;
            /** Spec */
            spec: {
                [key: string]: unknown;
            } | null;
            /** Title */
            title: string | null;
            /** Url */
            url: string;
        };
        /**
         * ChatCreate
         * @description A new chat on one of the caller's ready ontologies.
         */
        ChatCreate: {
            /**
             * Agentmode
             * @description Left out: the server's default (`DATAAGENT_AGENT_DEFAULT_MODE`).
             * @enum {string}
             */
            agentMode?: "react" | "pipeline" | "offline";
            /** Llmprovider */
            llmProvider?: ("openai" | "anthropic" | "azure" | "openai_compatible") | null;
            /**
             * Name
             * @description Left out (or `New chat`): the chat is named from its first question.
             * @default New chat
             */
            name: string;
            /**
             * Ontologyid
             * Format: uuid
             */
            ontologyId: string;
        };
        /**
         * ChatPublic
         * @description A chat without its messages.
         */
        ChatPublic: {
            /**
             * Agentmode
             * @description How the chat answers: `pipeline` (seed 001's six phases), `react` (the tool loop) or `offline` (the built-in planner, no model call).
             * @enum {string}
             */
            agentMode: "react" | "pipeline" | "offline";
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Llmprovider */
            llmProvider: ("openai" | "anthropic" | "azure" | "openai_compatible") | null;
            /**
             * Messagecount
             * @default 0
             */
            messageCount: number;
            /** Name */
            name: string;
            /**
             * Ontologyaccess
             * @description How the chat's owner reaches its ontology: `owner`, `shared`, or `withdrawn` (no longer shared with them: the chat stays readable, sending in it is 403).
             * @default owner
             * @enum {string}
             */
            ontologyAccess: "owner" | "shared" | "withdrawn";
            /**
             * Ontologyid
             * Format: uuid
             */
            ontologyId: string;
            /**
             * Ownerid
             * Format: uuid
             */
            ownerId: string;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
        };
        /**
         * ChatTurn
         * @description One message of the conversation.
         */
        ChatTurn: {
            /** Content */
            content: string;
            /**
             * Role
             * @enum {string}
             */
            role: "user" | "assistant";
        };
        /**
         * ChatUpdate
         * @description A new name, LLM provider (null clears it back to the default) or answer mode.
         */
        ChatUpdate: {
            /**
             * Agentmode
             * @enum {string}
             */
            agentMode?: "react" | "pipeline" | "offline";
            /** Llmprovider */
            llmProvider?: ("openai" | "anthropic" | "azure" | "openai_compatible") | null;
            /** Name */
            name?: string;
        };
        /**
         * ChatWithMessages
         * @description A chat and all its messages, oldest first.
         */
        ChatWithMessages: {
            /**
             * Agentmode
             * @description How the chat answers: `pipeline` (seed 001's six phases), `react` (the tool loop) or `offline` (the built-in planner, no model call).
             * @enum {string}
             */
            agentMode: "react" | "pipeline" | "offline";
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Llmprovider */
            llmProvider: ("openai" | "anthropic" | "azure" | "openai_compatible") | null;
            /**
             * Messagecount
             * @default 0
             */
            messageCount: number;
            /** Messages */
            messages: components["schemas"]["MessagePublic"][];
            /** Name */
            name: string;
            /**
             * Ontologyaccess
             * @description How the chat's owner reaches its ontology: `owner`, `shared`, or `withdrawn` (no longer shared with them: the chat stays readable, sending in it is 403).
             * @default owner
             * @enum {string}
             */
            ontologyAccess: "owner" | "shared" | "withdrawn";
            /**
             * Ontologyid
             * Format: uuid
             */
            ontologyId: string;
            /**
             * Ownerid
             * Format: uuid
             */
            ownerId: string;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
        };
        /**
         * CheckPublic
         * @description One check of the verification.
         */
        CheckPublic: {
            /** Message */
            message: string;
            /** Name */
            name: string;
            /** Passed */
            passed: boolean;
        };
        /**
         * CompiledWindow
         * @description The dates a plan's relative time window became (end dates are excluded).
         */
        CompiledWindow: {
            /**
             * End
             * Format: date
             */
            end: string;
            /**
             * Field
             * @description `dataset.field` the window filters.
             */
            field: string;
            /** Previous End */
            previous_end?: string | null;
            /** Previous Start */
            previous_start?: string | null;
            /**
             * Reference Date
             * Format: date
             * @description The 'today' the window was resolved against.
             */
            reference_date: string;
            /**
             * Start
             * Format: date
             */
            start: string;
        };
        /**
         * CompileInput
         * @description A QueryPlan to compile, and optionally run.
         */
        CompileInput: {
            /**
             * Execute
             * @default false
             */
            execute: boolean;
            /** Maxrows */
            maxRows?: number | null;
            plan: (components["schemas"]["QueryPlan"] & unknown) | {
                metrics: unknown;
            } | {
                measures: unknown;
            } | {
                dimensions: unknown;
            };
        };
        /**
         * CompileOutput
         * @description The SQL, the join path it follows and, when executed, the result and run id.
         */
        CompileOutput: {
            /**
             * Columns
             * @description Output column names, in order.
             */
            columns: string[];
            /** Dialect */
            dialect: string;
            joinPath: components["schemas"]["JoinPath"];
            /** Notes */
            notes: string[];
            /** Preaggregated */
            preAggregated: boolean;
            result?: components["schemas"]["QueryOutput"] | null;
            /** Sql */
            sql: string;
            /** @description The dates a relative time window became, and its reference date. */
            timeWindow?: components["schemas"]["CompiledWindow"] | null;
        };
        /**
         * ConnectionCreate
         * @description A new connection.
         */
        ConnectionCreate: {
            /** Database */
            database?: string | null;
            /**
             * Dialect
             * @enum {string}
             */
            dialect: "postgresql" | "sqlite" | "duckdb" | "mysql";
            /** Host */
            host?: string | null;
            /** Name */
            name: string;
            /** Password */
            password?: string | null;
            /** Port */
            port?: number | null;
            /** Url */
            url?: string | null;
            /** Username */
            username?: string | null;
        } & (unknown & unknown & unknown & unknown & unknown & unknown & unknown & unknown & unknown);
        /**
         * ConnectionPublic
         * @description A connection as the API shows it: never a password or a URL with one.
         */
        ConnectionPublic: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /**
             * Dialect
             * @enum {string}
             */
            dialect: "postgresql" | "sqlite" | "duckdb" | "mysql";
            /** Display */
            display: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /**
             * Kind
             * @enum {string}
             */
            kind: "database" | "files" | "demo";
            /** Lasttestedat */
            lastTestedAt: string | null;
            /** Name */
            name: string;
            /** Serverversion */
            serverVersion: string | null;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
        };
        /**
         * ConnectionTestResult
         * @description Whether the database answered, and its version.
         */
        ConnectionTestResult: {
            /** Error */
            error: string | null;
            /** Errorcode */
            errorCode: string | null;
            /** Ok */
            ok: boolean;
            /** Serverversion */
            serverVersion: string | null;
        };
        /**
         * ConnectionUpdate
         * @description A new name, or new credentials (merged over the stored ones).
         */
        ConnectionUpdate: {
            /** Database */
            database?: string | null;
            /** Dialect */
            dialect?: ("postgresql" | "sqlite" | "duckdb" | "mysql") | null;
            /** Host */
            host?: string | null;
            /** Name */
            name?: string | null;
            /** Password */
            password?: string | null;
            /** Port */
            port?: number | null;
            /** Url */
            url?: string | null;
            /** Username */
            username?: string | null;
        } & (unknown & unknown & unknown & unknown & unknown & unknown & unknown);
        /**
         * DatasetDetail
         * @description A dataset's YAML, fields and relationships.
         */
        DatasetDetail: {
            /** Description */
            description: string | null;
            /** Fields */
            fields: components["schemas"]["FieldPublic"][];
            /** Name */
            name: string;
            /** Relationships */
            relationships: components["schemas"]["GraphEdge"][];
            /** Source */
            source: string;
            /** Yaml */
            yaml: string;
        };
        /**
         * DatasetPublic
         * @description A dataset as its record holds it (seed 004's registry entry), plus its connection.
         */
        DatasetPublic: {
            /**
             * Connectionid
             * Format: uuid
             */
            connectionId: string;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Description */
            description: string | null;
            /** Files */
            files: {
                [key: string]: unknown;
            }[] | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string;
            /** Prompts */
            prompts: string[] | null;
            /** Versionhash */
            versionHash: string;
        };
        /**
         * DefaultOntologyUpdate
         * @description The ontology the caller's stateless chat asks about when a request names none; null
         *     clears it (then their only ready ontology is used, if they have exactly one).
         */
        DefaultOntologyUpdate: {
            /** Ontologyid */
            ontologyId: string | null;
        };
        /**
         * DefaultProviderUpdate
         * @description The caller's default provider; null clears it back to the system default.
         */
        DefaultProviderUpdate: {
            /** Provider */
            provider: ("openai" | "anthropic" | "azure" | "openai_compatible") | null;
        };
        /**
         * Dimension
         * @description A grouping column, optionally truncated to a time grain, or with some of its values
         *     set against all the others (`group`).
         */
        Dimension: {
            /** Alias */
            alias?: string | null;
            /** Field */
            field: string;
            /** @description Keep these values of a text field and put every other one under `others`. */
            group?: components["schemas"]["DimensionGroup"] | null;
            /** Time Grain */
            time_grain?: ("day" | "week" | "month" | "quarter" | "year") | null;
        };
        /**
         * DimensionGroup
         * @description Some values of a text dimension kept as they are, every other value (and NULL) put
         *     together under one label: "Houston compared with the other stores".
         */
        DimensionGroup: {
            /**
             * Others
             * @default Others
             */
            others: string;
            /** Values */
            values: string[];
        };
        /** Envelope[AgentServerAnswer] */
        Envelope_AgentServerAnswer_: {
            data: components["schemas"]["AgentServerAnswer"];
        };
        /** Envelope[BackfillResult] */
        Envelope_BackfillResult_: {
            data: components["schemas"]["BackfillResult"];
        };
        /** Envelope[ChartPublic] */
        Envelope_ChartPublic_: {
            data: components["schemas"]["ChartPublic"];
        };
        /** Envelope[ChatPublic] */
        Envelope_ChatPublic_: {
            data: components["schemas"]["ChatPublic"];
        };
        /** Envelope[ChatWithMessages] */
        Envelope_ChatWithMessages_: {
            data: components["schemas"]["ChatWithMessages"];
        };
        /** Envelope[CompileOutput] */
        Envelope_CompileOutput_: {
            data: components["schemas"]["CompileOutput"];
        };
        /** Envelope[ConnectionPublic] */
        Envelope_ConnectionPublic_: {
            data: components["schemas"]["ConnectionPublic"];
        };
        /** Envelope[ConnectionTestResult] */
        Envelope_ConnectionTestResult_: {
            data: components["schemas"]["ConnectionTestResult"];
        };
        /** Envelope[DatasetDetail] */
        Envelope_DatasetDetail_: {
            data: components["schemas"]["DatasetDetail"];
        };
        /** Envelope[DatasetPublic] */
        Envelope_DatasetPublic_: {
            data: components["schemas"]["DatasetPublic"];
        };
        /** Envelope[dict[str, Any]] */
        Envelope_dict_str__Any__: {
            /** Data */
            data: {
                [key: string]: unknown;
            };
        };
        /** Envelope[Graph] */
        Envelope_Graph_: {
            data: components["schemas"]["Graph"];
        };
        /** Envelope[GroupPublic] */
        Envelope_GroupPublic_: {
            data: components["schemas"]["GroupPublic"];
        };
        /** Envelope[list[ConnectionPublic]] */
        Envelope_list_ConnectionPublic__: {
            /** Data */
            data: components["schemas"]["ConnectionPublic"][];
        };
        /** Envelope[list[DatasetPublic]] */
        Envelope_list_DatasetPublic__: {
            /** Data */
            data: components["schemas"]["DatasetPublic"][];
        };
        /** Envelope[list[GroupMemberPublic]] */
        Envelope_list_GroupMemberPublic__: {
            /** Data */
            data: components["schemas"]["GroupMemberPublic"][];
        };
        /** Envelope[list[GroupPublic]] */
        Envelope_list_GroupPublic__: {
            /** Data */
            data: components["schemas"]["GroupPublic"][];
        };
        /** Envelope[list[JoinPath]] */
        Envelope_list_JoinPath__: {
            /** Data */
            data: components["schemas"]["JoinPath"][];
        };
        /** Envelope[list[LlmTracePublic]] */
        Envelope_list_LlmTracePublic__: {
            /** Data */
            data: components["schemas"]["LlmTracePublic"][];
        };
        /** Envelope[list[OntologyPublic]] */
        Envelope_list_OntologyPublic__: {
            /** Data */
            data: components["schemas"]["OntologyPublic"][];
        };
        /** Envelope[list[PreferencePublic]] */
        Envelope_list_PreferencePublic__: {
            /** Data */
            data: components["schemas"]["PreferencePublic"][];
        };
        /** Envelope[list[SemanticModelSummary]] */
        Envelope_list_SemanticModelSummary__: {
            /** Data */
            data: components["schemas"]["SemanticModelSummary"][];
        };
        /** Envelope[list[SharePublic]] */
        Envelope_list_SharePublic__: {
            /** Data */
            data: components["schemas"]["SharePublic"][];
        };
        /** Envelope[list[SuggestionPublic]] */
        Envelope_list_SuggestionPublic__: {
            /** Data */
            data: components["schemas"]["SuggestionPublic"][];
        };
        /** Envelope[LlmProvidersPublic] */
        Envelope_LlmProvidersPublic_: {
            data: components["schemas"]["LlmProvidersPublic"];
        };
        /** Envelope[LlmSettingsPublic] */
        Envelope_LlmSettingsPublic_: {
            data: components["schemas"]["LlmSettingsPublic"];
        };
        /** Envelope[LoginResult] */
        Envelope_LoginResult_: {
            data: components["schemas"]["LoginResult"];
        };
        /** Envelope[MessagePair] */
        Envelope_MessagePair_: {
            data: components["schemas"]["MessagePair"];
        };
        /** Envelope[MessagePublic] */
        Envelope_MessagePublic_: {
            data: components["schemas"]["MessagePublic"];
        };
        /** Envelope[OntologyPublic] */
        Envelope_OntologyPublic_: {
            data: components["schemas"]["OntologyPublic"];
        };
        /** Envelope[PageOf[ChatPublic]] */
        Envelope_PageOf_ChatPublic__: {
            data: components["schemas"]["PageOf_ChatPublic_"];
        };
        /** Envelope[PageOf[MessagePublic]] */
        Envelope_PageOf_MessagePublic__: {
            data: components["schemas"]["PageOf_MessagePublic_"];
        };
        /** Envelope[PageOf[UserPublic]] */
        Envelope_PageOf_UserPublic__: {
            data: components["schemas"]["PageOf_UserPublic_"];
        };
        /** Envelope[PreferencePublic] */
        Envelope_PreferencePublic_: {
            data: components["schemas"]["PreferencePublic"];
        };
        /** Envelope[QueryOutput] */
        Envelope_QueryOutput_: {
            data: components["schemas"]["QueryOutput"];
        };
        /** Envelope[QueryRecordPublic] */
        Envelope_QueryRecordPublic_: {
            data: components["schemas"]["QueryRecordPublic"];
        };
        /** Envelope[ReportPublic] */
        Envelope_ReportPublic_: {
            data: components["schemas"]["ReportPublic"];
        };
        /** Envelope[RunPublic] */
        Envelope_RunPublic_: {
            data: components["schemas"]["RunPublic"];
        };
        /** Envelope[SearchResult] */
        Envelope_SearchResult_: {
            data: components["schemas"]["SearchResult"];
        };
        /** Envelope[SemanticModelPublic] */
        Envelope_SemanticModelPublic_: {
            data: components["schemas"]["SemanticModelPublic"];
        };
        /** Envelope[SemanticModelRegenerated] */
        Envelope_SemanticModelRegenerated_: {
            data: components["schemas"]["SemanticModelRegenerated"];
        };
        /** Envelope[SessionPublic] */
        Envelope_SessionPublic_: {
            data: components["schemas"]["SessionPublic"];
        };
        /** Envelope[SharePublic] */
        Envelope_SharePublic_: {
            data: components["schemas"]["SharePublic"];
        };
        /** Envelope[UserPublic] */
        Envelope_UserPublic_: {
            data: components["schemas"]["UserPublic"];
        };
        /**
         * ErrorBody
         * @description Every error response body: `{"error": {...}}`.
         */
        ErrorBody: {
            error: components["schemas"]["ErrorDetail"];
        };
        /**
         * ErrorDetail
         * @description What went wrong: a machine code, a human sentence and optional details.
         */
        ErrorDetail: {
            /** Code */
            code: string;
            /** Details */
            details?: unknown;
            /** Message */
            message: string;
        };
        /**
         * FieldPublic
         * @description A field of a dataset.
         */
        FieldPublic: {
            /** Datatype */
            dataType: string;
            /** Description */
            description: string | null;
            /** Isprimarykey */
            isPrimaryKey: boolean;
            /** Label */
            label: string | null;
            /** Name */
            name: string;
        };
        /**
         * Filter
         * @description A row condition. `value` is a list for `in`/`not_in` and a pair for `between`.
         */
        Filter: {
            /** Field */
            field: string;
            /**
             * Op
             * @enum {string}
             */
            op: "=" | "!=" | ">" | ">=" | "<" | "<=" | "in" | "not_in" | "between" | "like" | "is_null" | "is_not_null";
            /** Value */
            value?: boolean | number | string | (boolean | number | string)[] | null;
        };
        /**
         * FilterGroup
         * @description Filters of which at least one must hold (OR); the plan's filters are AND-ed.
         */
        FilterGroup: {
            /** Any */
            any: components["schemas"]["Filter"][];
        };
        /**
         * Graph
         * @description Nodes and edges for drawing the ontology.
         */
        Graph: {
            /** Edges */
            edges: components["schemas"]["GraphEdge"][];
            /** Nodes */
            nodes: components["schemas"]["GraphNode"][];
        };
        /**
         * GraphEdge
         * @description A relationship in the graph.
         */
        GraphEdge: {
            /** Cardinality */
            cardinality: string;
            /** Fromcolumns */
            fromColumns: string[];
            /** Id */
            id: string;
            /** Origin */
            origin: string;
            /** Source */
            source: string;
            /** Target */
            target: string;
            /** Tocolumns */
            toColumns: string[];
        };
        /**
         * GraphNode
         * @description A dataset in the graph.
         */
        GraphNode: {
            /** Description */
            description: string | null;
            /** Fieldcount */
            fieldCount: number;
            /** Id */
            id: string;
            /** Label */
            label: string;
            /** Source */
            source: string;
        };
        /**
         * GroupCreate
         * @description A new group (names are unique, ignoring case).
         */
        GroupCreate: {
            /** Description */
            description?: string | null;
            /** Name */
            name: string;
        };
        /**
         * GroupMemberPublic
         * @description A member of a group.
         */
        GroupMemberPublic: {
            /** Email */
            email: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Isactive */
            isActive: boolean;
            /**
             * Role
             * @enum {string}
             */
            role: "admin" | "contributor" | "viewer";
        };
        /**
         * GroupMembersInput
         * @description The group's whole list of members (a user named twice counts once).
         */
        GroupMembersInput: {
            /** Userids */
            userIds: string[];
        };
        /**
         * GroupPublic
         * @description A group and how many members it has.
         */
        GroupPublic: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Createdby */
            createdBy: string | null;
            /** Description */
            description: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Membercount */
            memberCount: number;
            /** Name */
            name: string;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
        };
        /**
         * GroupUpdate
         * @description Changes to a group; omitted fields stay as they are (a null description clears it).
         */
        GroupUpdate: {
            /** Description */
            description?: string | null;
            /** Name */
            name?: string;
        };
        /** HTTPValidationError */
        HTTPValidationError: {
            /** Detail */
            detail?: components["schemas"]["ValidationError"][];
        };
        /**
         * ItemsBlockPublic
         * @description The assumptions the answer made, or its caveats.
         */
        ItemsBlockPublic: {
            /** Items */
            items: string[];
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "assumptions" | "caveats";
        };
        /**
         * JoinEdge
         * @description One relationship walked in one direction: `from.from_columns = to.to_columns`.
         */
        JoinEdge: {
            /** @description As seen walking from `from` to `to`. */
            cardinality: components["schemas"]["Cardinality"];
            /**
             * Fan Out
             * @description True when walking this edge can repeat the rows already joined.
             */
            readonly fan_out: boolean;
            /** From Columns */
            from_columns: string[];
            /** From Dataset */
            from_dataset: string;
            /**
             * Inferred
             * @description True when the relationship was guessed, not declared.
             */
            readonly inferred: boolean;
            /** Relationship */
            relationship: string;
            source: components["schemas"]["RelationshipSource"];
            /** To Columns */
            to_columns: string[];
            /** To Dataset */
            to_dataset: string;
        };
        /**
         * JoinPath
         * @description A join sequence from `root`: each edge joins one new dataset to one already joined.
         *
         *     A path between two datasets is a chain; a connecting tree for three or more datasets
         *     is the same structure with branches. `duplicated_datasets` lists the datasets whose
         *     rows may appear more than once in the joined result (an aggregate over them fans out).
         */
        JoinPath: {
            /**
             * Datasets
             * @description Every dataset on the path, in join order.
             */
            readonly datasets: string[];
            /**
             * Duplicated Datasets
             * @default []
             */
            duplicated_datasets: string[];
            /**
             * Edges
             * @default []
             */
            edges: components["schemas"]["JoinEdge"][];
            /**
             * Fan Out
             * @description True when the root's rows may be repeated by the joins.
             */
            readonly fan_out: boolean;
            /**
             * Hops
             * @description The number of joins.
             */
            readonly hops: number;
            /**
             * Inferred Edges
             * @description How many edges rest on inferred relationships.
             */
            readonly inferred_edges: number;
            /** Root */
            root: string;
        };
        /**
         * JoinPathsInput
         * @description Datasets to connect: two give alternative paths, three or more a connecting tree.
         */
        JoinPathsInput: {
            /** Datasets */
            datasets: string[];
        };
        /**
         * LineageBlockPublic
         * @description Where the numbers come from.
         */
        LineageBlockPublic: {
            /** Datasets */
            datasets: string[];
            /** Filters */
            filters: string[];
            /** Grain */
            grain: string;
            /** Joins */
            joins: components["schemas"]["LineageJoinPublic"][];
            /** Rowcount */
            rowCount: number | null;
            /** Timewindow */
            timeWindow: string | null;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "lineage";
        };
        /**
         * LineageJoinPublic
         * @description A join: `from` → `to` on a condition.
         */
        LineageJoinPublic: {
            /** From */
            from: string;
            /** On */
            on: string;
            /** To */
            to: string;
        };
        /**
         * LlmProvidersPublic
         * @description The providers a user may choose, their default and the system's.
         */
        LlmProvidersPublic: {
            /**
             * Defaultprovider
             * @description The caller's default provider (null: the system default).
             */
            defaultProvider: ("openai" | "anthropic" | "azure") | null;
            /** Providers */
            providers: components["schemas"]["ProviderPublic"][];
            /**
             * Systemdefault
             * @description The provider of a chat and user naming none (null: none is enabled).
             */
            systemDefault: ("openai" | "anthropic" | "azure") | null;
        };
        /**
         * LlmSettingsPublic
         * @description Every provider's admin settings.
         */
        LlmSettingsPublic: {
            /** Providers */
            providers: components["schemas"]["ProviderSettingsPublic"][];
            /** Systemdefault */
            systemDefault: ("openai" | "anthropic" | "azure") | null;
        };
        /**
         * LlmTracePublic
         * @description One model call of an answer (seed 001's trace).
         */
        LlmTracePublic: {
            /** Callindex */
            callIndex: number;
            /**
             * Completedat
             * Format: date-time
             */
            completedAt: string;
            /** Completiontokens */
            completionTokens: number;
            /** Durationms */
            durationMs: number;
            /** Error */
            error: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Messageid */
            messageId: string | null;
            /** Model */
            model: string;
            /** Phase */
            phase: string;
            /** Promptmessages */
            promptMessages: {
                [key: string]: unknown;
            }[];
            /** Prompttokens */
            promptTokens: number;
            /** Provider */
            provider: string;
            /** Purpose */
            purpose: string;
            /** Responsecontent */
            responseContent: string | null;
            /** Runid */
            runId: string | null;
            /**
             * Startedat
             * Format: date-time
             */
            startedAt: string;
            /** Stepid */
            stepId: number | null;
            /** Structuredoutput */
            structuredOutput: boolean;
            /** Temperature */
            temperature: number | null;
            /** Toolcalls */
            toolCalls: {
                [key: string]: unknown;
            }[] | null;
            /** Totaltokens */
            totalTokens: number;
        };
        /**
         * LoginInput
         * @description Credentials.
         */
        LoginInput: {
            /** Email */
            email: string;
            /** Password */
            password: string;
        };
        /**
         * LoginResult
         * @description A token and the signed-in user.
         */
        LoginResult: {
            /** Accesstoken */
            accessToken: string;
            /**
             * Expiresat
             * Format: date-time
             */
            expiresAt: string;
            /**
             * Tokentype
             * @default bearer
             */
            tokenType: string;
            user: components["schemas"]["UserPublic"];
        };
        /**
         * MarkdownBlockPublic
         * @description Narrative text as markdown: a client renders it with raw HTML shown as text.
         */
        MarkdownBlockPublic: {
            /** Text */
            text: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "markdown";
        };
        /**
         * Measure
         * @description An aggregate: `field` is `dataset.field`, or `*` / `dataset.*` for a row count.
         */
        Measure: {
            /**
             * Aggregation
             * @enum {string}
             */
            aggregation: "sum" | "avg" | "min" | "max" | "count" | "count_distinct";
            /** Alias */
            alias?: string | null;
            /** Field */
            field: string;
        };
        /**
         * MessageCreate
         * @description A question for the agent.
         */
        MessageCreate: {
            /** Content */
            content: string;
        };
        /**
         * MessagePair
         * @description The stored question and the assistant's placeholder reply.
         */
        MessagePair: {
            assistantMessage: components["schemas"]["MessagePublic"];
            userMessage: components["schemas"]["MessagePublic"];
        };
        /**
         * MessagePublic
         * @description One message of a chat.
         */
        MessagePublic: {
            /**
             * Chatid
             * Format: uuid
             */
            chatId: string;
            /** Content */
            content: string;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            } | null;
            /**
             * Role
             * @enum {string}
             */
            role: "user" | "assistant";
            /**
             * Status
             * @enum {string}
             */
            status: "generating" | "complete" | "failed" | "clarification_needed";
        };
        /**
         * MetricFormat
         * @description How a metric's values are shown.
         * @enum {string}
         */
        MetricFormat: "currency" | "percent" | "number";
        /**
         * MetricHit
         * @description A metric of the semantic model, the datasets it reads, and how well it matches.
         */
        MetricHit: {
            /** Cosine */
            cosine: number;
            /** Datasets */
            datasets: string[];
            /** Description */
            description: string | null;
            format: components["schemas"]["MetricFormat"];
            /** Keyword */
            keyword: number;
            /** Label */
            label: string | null;
            /** Name */
            name: string;
            /** Score */
            score: number;
        };
        /**
         * MetricRef
         * @description A metric of the semantic model, by name.
         */
        MetricRef: {
            /** Alias */
            alias?: string | null;
            /** Name */
            name: string;
            /**
             * Share Of Total
             * @description Also output `<alias>_share`: this row's fraction of all rows' total.
             * @default false
             */
            share_of_total: boolean;
        };
        /**
         * ModelChange
         * @description One thing a regeneration did to the model, and why when it was not the obvious.
         */
        ModelChange: {
            /**
             * Change
             * @enum {string}
             */
            change: "added" | "removed" | "updated" | "kept_edit" | "kept_deletion" | "dropped";
            /**
             * Kind
             * @enum {string}
             */
            kind: "dataset" | "field" | "relationship" | "metric";
            /** Name */
            name: string;
            /** Reason */
            reason?: string | null;
        };
        /**
         * OntologyCreate
         * @description Build an ontology from one of the caller's semantic models.
         */
        OntologyCreate: {
            /** Description */
            description?: string | null;
            /** Name */
            name: string;
            /**
             * Semanticmodelid
             * Format: uuid
             */
            semanticModelId: string;
        };
        /**
         * OntologyOwner
         * @description Who owns an ontology (and its connection and semantic model).
         */
        OntologyOwner: {
            /** Email */
            email: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
        };
        /**
         * OntologyPublic
         * @description An ontology and its build status, and how the caller reaches it.
         */
        OntologyPublic: {
            /**
             * Access
             * @description `owner`: the caller's own; `shared`: shared with them (directly or through a group), to read and ask about, nothing else.
             * @enum {string}
             */
            access: "owner" | "shared";
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Datasetcount */
            datasetCount: number;
            /** Description */
            description: string | null;
            /** Embeddingprovider */
            embeddingProvider: string | null;
            /** Error */
            error: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string;
            owner: components["schemas"]["OntologyOwner"];
            /** Relationshipcount */
            relationshipCount: number;
            /** Semanticmodelid */
            semanticModelId: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "building" | "ready" | "failed";
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
        };
        /**
         * OpenAISettingsUpdate
         * @description OpenAI's or Azure's settings: `reasoningLevel` is their `reasoning_effort`.
         */
        OpenAISettingsUpdate: {
            /** Model */
            model?: string | null;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            provider: "azure" | "openai" | "openai_compatible";
            /** Reasoninglevel */
            reasoningLevel?: ("low" | "medium" | "high") | null;
            /** Temperature */
            temperature?: number | null;
        };
        /**
         * OrderBy
         * @description Sort by an output alias (or the `dataset.field` of a dimension or measure).
         */
        OrderBy: {
            /** By */
            by: string;
            /**
             * Direction
             * @default asc
             * @enum {string}
             */
            direction: "asc" | "desc";
        };
        /** PageOf[ChatPublic] */
        PageOf_ChatPublic_: {
            /** Items */
            items: components["schemas"]["ChatPublic"][];
            /** Page */
            page: number;
            /** Pagesize */
            pageSize: number;
            /** Total */
            total: number;
            /** Totalpages */
            totalPages: number;
        };
        /** PageOf[MessagePublic] */
        PageOf_MessagePublic_: {
            /** Items */
            items: components["schemas"]["MessagePublic"][];
            /** Page */
            page: number;
            /** Pagesize */
            pageSize: number;
            /** Total */
            total: number;
            /** Totalpages */
            totalPages: number;
        };
        /** PageOf[UserPublic] */
        PageOf_UserPublic_: {
            /** Items */
            items: components["schemas"]["UserPublic"][];
            /** Page */
            page: number;
            /** Pagesize */
            pageSize: number;
            /** Total */
            total: number;
            /** Totalpages */
            totalPages: number;
        };
        /**
         * PreferenceCreate
         * @description A preference to store; one of that key in that scope has its value replaced.
         */
        PreferenceCreate: {
            /**
             * Key
             * @description A name (`default_time_window`). `auto_capture_mode` is the global choice of what the agent does with answers to its clarifying questions: `off`, `auto`, `ask`.
             */
            key: string;
            /**
             * Ontologyid
             * @description The ontology it applies to; null or left out: every ontology.
             */
            ontologyId?: string | null;
            /**
             * Source
             * @default manual
             * @enum {string}
             */
            source: "manual" | "auto_captured";
            /** Value */
            value: string;
        } & unknown;
        /**
         * PreferencePublic
         * @description A stored preference: global (`ontologyId` null) or one ontology's.
         */
        PreferencePublic: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Key */
            key: string;
            /** Ontologyid */
            ontologyId: string | null;
            /**
             * Source
             * @enum {string}
             */
            source: "manual" | "auto_captured";
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
            /**
             * Userid
             * Format: uuid
             */
            userId: string;
            /** Value */
            value: string;
        };
        /**
         * PreferenceUpdate
         * @description A preference's new value.
         */
        PreferenceUpdate: {
            /** Value */
            value: string;
        };
        /**
         * ProviderPublic
         * @description An enabled provider and the model it answers with.
         */
        ProviderPublic: {
            /**
             * Id
             * @enum {string}
             */
            id: "openai" | "anthropic" | "azure";
            /** Isdefault */
            isDefault: boolean;
            /** Model */
            model: string;
            /** Name */
            name: string;
            /** Reasoninglevel */
            reasoningLevel: string | null;
        };
        /**
         * ProviderSettingsPublic
         * @description One provider's admin settings (null fields: the environment's default).
         */
        ProviderSettingsPublic: {
            /**
             * Defaultmodel
             * @description The model the environment names.
             */
            defaultModel: string;
            /**
             * Effectivemodel
             * @description The model that answers: the setting or default.
             */
            effectiveModel: string;
            /** Enabled */
            enabled: boolean;
            /** Model */
            model: string | null;
            /** Name */
            name: string;
            /**
             * Provider
             * @enum {string}
             */
            provider: "openai" | "anthropic" | "azure";
            /** Reasoninglevel */
            reasoningLevel: string | null;
            /** Temperature */
            temperature: number | null;
            /** Updatedat */
            updatedAt: string | null;
        };
        /**
         * QueryInput
         * @description SQL to run against a connection, or an ontology's connection (limited to its tables).
         */
        QueryInput: {
            /**
             * Connectionid
             * Format: uuid
             */
            connectionId?: string;
            /** Maxrows */
            maxRows?: number | null;
            /**
             * Ontologyid
             * Format: uuid
             */
            ontologyId?: string;
            /** Sql */
            sql: string;
        } & (unknown | unknown);
        /**
         * QueryOutput
         * @description What came back, and the id of the record that keeps it.
         */
        QueryOutput: {
            /** Columns */
            columns: string[];
            /** Executedsql */
            executedSql: string | null;
            /** Executionms */
            executionMs: number;
            /** Rowcount */
            rowCount: number;
            /** Rows */
            rows: unknown[][];
            /**
             * Runid
             * Format: uuid
             */
            runId: string;
            /** Truncated */
            truncated: boolean;
        };
        /**
         * QueryPlan
         * @description A question as data: what to aggregate, by what, for which rows, in what order.
         */
        QueryPlan: {
            /**
             * Compare
             * @description Also output each metric and measure for the window before (or a year before), with `<alias>_previous`, `<alias>_change` and `<alias>_change_pct`.
             */
            compare?: ("previous_period" | "previous_year") | null;
            /**
             * Datasets
             * @description Datasets the question is about; used to resolve bare field names and `*`.
             */
            datasets?: string[];
            /** Dimensions */
            dimensions?: components["schemas"]["Dimension"][];
            /** Filters */
            filters?: (components["schemas"]["Filter"] | components["schemas"]["FilterGroup"])[];
            /** Having */
            having?: components["schemas"]["AggregateFilter"][];
            /** Limit */
            limit?: number | null;
            /** Measures */
            measures?: components["schemas"]["Measure"][];
            /** Metrics */
            metrics?: components["schemas"]["MetricRef"][];
            /** Order */
            order?: components["schemas"]["OrderBy"][];
            /**
             * Reference Date
             * @description The 'today' of `time_window`; the compiler records the one it used.
             */
            reference_date?: string | null;
            time_window?: components["schemas"]["TimeWindow"] | null;
            top?: components["schemas"]["TopN"] | null;
        };
        /**
         * QueryRecordPublic
         * @description A query record: seed 004's run capsule.
         */
        QueryRecordPublic: {
            /** Compiledsql */
            compiledSql: string | null;
            /** Connectionid */
            connectionId: string | null;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Datasetversion */
            datasetVersion: string | null;
            /** Errorcode */
            errorCode: string | null;
            /** Errormessage */
            errorMessage: string | null;
            /** Executionms */
            executionMs: number;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /**
             * Mode
             * @enum {string}
             */
            mode: "sql" | "plan";
            /** Ontologyid */
            ontologyId: string | null;
            /** Plan */
            plan: {
                [key: string]: unknown;
            } | null;
            /** Question */
            question: string | null;
            /** Resultsummary */
            resultSummary: {
                [key: string]: unknown;
            } | null;
            /** Rowcount */
            rowCount: number;
            /** Sql */
            sql: string;
            /**
             * Status
             * @enum {string}
             */
            status: "succeeded" | "failed";
            /** Truncated */
            truncated: boolean;
        };
        /**
         * RelationshipSource
         * @description Where a relationship came from.
         * @enum {string}
         */
        RelationshipSource: "foreign_key" | "inferred" | "manual";
        /**
         * ReportPublic
         * @description An answer as a report: its title, question, time, status and blocks in order.
         */
        ReportPublic: {
            /** Blocks */
            blocks: (components["schemas"]["MarkdownBlockPublic"] | components["schemas"]["TableBlockPublic"] | components["schemas"]["ChartBlockPublic"] | components["schemas"]["LineageBlockPublic"] | components["schemas"]["ItemsBlockPublic"] | components["schemas"]["VerificationBlockPublic"] | components["schemas"]["SqlBlockPublic"])[];
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Question */
            question: string;
            /** Status */
            status: string;
            /** Title */
            title: string;
        };
        /**
         * RunPublic
         * @description A run: what it does, where it is, and how it ended.
         */
        RunPublic: {
            /** Cancelrequested */
            cancelRequested: boolean;
            /** Chatid */
            chatId: string | null;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Errorcode */
            errorCode: string | null;
            /** Errormessage */
            errorMessage: string | null;
            /** Finishedat */
            finishedAt: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /**
             * Kind
             * @enum {string}
             */
            kind: "chat_message" | "ontology_build" | "agent_server";
            /** Messageid */
            messageId: string | null;
            /** Ontologyid */
            ontologyId: string | null;
            /** Startedat */
            startedAt: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "queued" | "running" | "succeeded" | "failed";
        };
        /**
         * SearchHit
         * @description A dataset and how well it matches the question.
         *
         *     `viaMetric` names the metric whose score it took when that metric (which reads this
         *     dataset) matched the question better than the dataset itself did.
         */
        SearchHit: {
            /** Cosine */
            cosine: number;
            /** Keyword */
            keyword: number;
            /** Name */
            name: string;
            /** Score */
            score: number;
            /** Viametric */
            viaMetric?: string | null;
        };
        /**
         * SearchResult
         * @description The datasets and the metrics most relevant to a question, best first.
         */
        SearchResult: {
            /** Datasets */
            datasets: components["schemas"]["SearchHit"][];
            /** Metrics */
            metrics: components["schemas"]["MetricHit"][];
        };
        /**
         * SemanticModelCreate
         * @description Generate a model from one of the caller's connections.
         */
        SemanticModelCreate: {
            /**
             * Connectionid
             * Format: uuid
             */
            connectionId: string;
            /** Description */
            description?: string | null;
            /** Name */
            name: string;
        };
        /**
         * SemanticModelPublic
         * @description A semantic model with its YAML.
         */
        SemanticModelPublic: {
            /** Connectionid */
            connectionId: string | null;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Datasetcount */
            datasetCount: number;
            /** Description */
            description: string | null;
            /**
             * Dialect
             * @enum {string}
             */
            dialect: "postgresql" | "sqlite" | "duckdb" | "mysql";
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string;
            /** Relationshipcount */
            relationshipCount: number;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
            /** Yaml */
            yaml: string;
        };
        /**
         * SemanticModelRegenerated
         * @description A semantic model after regeneration, with what the merge did to it.
         */
        SemanticModelRegenerated: {
            /**
             * Changes
             * @description Every item the regeneration added, removed or updated, every edit and deletion of yours it kept, and everything it dropped because what it named is gone.
             */
            changes: components["schemas"]["ModelChange"][];
            /** Connectionid */
            connectionId: string | null;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Datasetcount */
            datasetCount: number;
            /** Description */
            description: string | null;
            /**
             * Dialect
             * @enum {string}
             */
            dialect: "postgresql" | "sqlite" | "duckdb" | "mysql";
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string;
            /** Relationshipcount */
            relationshipCount: number;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
            /** Yaml */
            yaml: string;
        };
        /**
         * SemanticModelSummary
         * @description A semantic model without its YAML.
         */
        SemanticModelSummary: {
            /** Connectionid */
            connectionId: string | null;
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Datasetcount */
            datasetCount: number;
            /** Description */
            description: string | null;
            /**
             * Dialect
             * @enum {string}
             */
            dialect: "postgresql" | "sqlite" | "duckdb" | "mysql";
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Name */
            name: string;
            /** Relationshipcount */
            relationshipCount: number;
            /**
             * Updatedat
             * Format: date-time
             */
            updatedAt: string;
        };
        /**
         * SemanticModelUpdate
         * @description A new name, description or YAML (validated; errors point at line and field).
         */
        SemanticModelUpdate: {
            /** Description */
            description?: string | null;
            /** Name */
            name?: string | null;
            /** Yaml */
            yaml?: string | null;
        };
        /**
         * SessionPublic
         * @description Who is signed in on this request: a user, or null for nobody (never a 401).
         */
        SessionPublic: {
            user: components["schemas"]["UserPublic"] | null;
        };
        /**
         * ShareCreate
         * @description Share an ontology with one user or one group, optionally under a database role.
         */
        ShareCreate: {
            /**
             * Databaserole
             * @description PostgreSQL only: the role each of the grantee's queries runs under (`SET LOCAL ROLE`), so the database's grants and row-level security decide what they see. The connection's account must be a member of it; an ordinary role only.
             */
            databaseRole?: string | null;
            /**
             * Groupid
             * Format: uuid
             */
            groupId?: string;
            /**
             * Userid
             * Format: uuid
             */
            userId?: string;
        } & (unknown | unknown);
        /**
         * SharePublic
         * @description One share of an ontology: with a user (`userId`, `userEmail`) or a group (`groupId`,
         *     `groupName`), and the database role its queries run under (null: the connection's).
         */
        SharePublic: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Createdby */
            createdBy: string | null;
            /** Databaserole */
            databaseRole: string | null;
            /** Groupid */
            groupId: string | null;
            /** Groupname */
            groupName: string | null;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /**
             * Ontologyid
             * Format: uuid
             */
            ontologyId: string;
            /** Useremail */
            userEmail: string | null;
            /** Userid */
            userId: string | null;
        };
        /**
         * SqlBlockPublic
         * @description A query the answer ran; `stepId` names a pipeline step's.
         */
        SqlBlockPublic: {
            /** Sql */
            sql: string;
            /** Stepid */
            stepId: number | null;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "sql";
        };
        /**
         * StatelessChatRequest
         * @description The conversation so far (the last message is the user's question) and the ontology
         *     to ask about: without `ontologyId`, the caller's default ontology (`PUT
         *     /api/me/default-ontology`), else their only ready one.
         */
        StatelessChatRequest: {
            /** Messages */
            messages: components["schemas"]["ChatTurn"][];
            /** Ontologyid */
            ontologyId?: string | null;
        };
        /**
         * StreamRequest
         * @description Seed 001's body of `POST /api/data-agent/stream/{messageId}` (all optional).
         *
         *     `question` is accepted for compatibility and not used: the question is the user
         *     message stored before the assistant message being answered.
         */
        StreamRequest: {
            /** Chatid */
            chatId?: string | null;
            /** Question */
            question?: string | null;
        };
        /**
         * SuggestionPublic
         * @description A question to offer about an ontology: a card's title and line, and the prompt.
         */
        SuggestionPublic: {
            /** Description */
            description: string;
            /** Prompt */
            prompt: string;
            /** Title */
            title: string;
        };
        /**
         * TableBlockPublic
         * @description A result table: `rows` holds at most 200 rows of `rowCount`.
         */
        TableBlockPublic: {
            /** Columns */
            columns: string[];
            /** Rowcount */
            rowCount: number;
            /** Rows */
            rows: unknown[][];
            /** Title */
            title: string;
            /** Truncated */
            truncated: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "table";
        };
        /**
         * TimeWindow
         * @description A window of time relative to the plan's reference date, on a date or timestamp field.
         *
         *     `last`: the `count` periods of `grain` up to and including the one holding the
         *     reference date; `to_date`: from the start of the period holding it through the
         *     reference date (year to date); `previous`: the `count` whole periods before it.
         */
        TimeWindow: {
            /**
             * Count
             * @default 1
             */
            count: number;
            /** Field */
            field: string;
            /**
             * Grain
             * @enum {string}
             */
            grain: "day" | "week" | "month" | "quarter" | "year";
            /**
             * Period
             * @enum {string}
             */
            period: "last" | "to_date" | "previous";
        };
        /**
         * TopN
         * @description Keep the first `n` rows by `by`, within each group of `within` (or overall).
         */
        TopN: {
            /**
             * By
             * @description An output alias, metric name or measure field.
             */
            by: string;
            /**
             * Direction
             * @default desc
             * @enum {string}
             */
            direction: "asc" | "desc";
            /** N */
            n: number;
            /**
             * Within
             * @description Dimensions (alias or field) that form the groups.
             */
            within?: string[];
        };
        /**
         * UserCreate
         * @description A new user.
         */
        UserCreate: {
            /** Email */
            email: string;
            /** Password */
            password: string;
            /**
             * Role
             * @default viewer
             * @enum {string}
             */
            role: "admin" | "contributor" | "viewer";
        };
        /**
         * UserPublic
         * @description A user as the API shows it (never the password hash).
         */
        UserPublic: {
            /**
             * Createdat
             * Format: date-time
             */
            createdAt: string;
            /** Defaultontologyid */
            defaultOntologyId: string | null;
            /** Email */
            email: string;
            /**
             * Id
             * Format: uuid
             */
            id: string;
            /** Isactive */
            isActive: boolean;
            /** Permissions */
            permissions: string[];
            /**
             * Role
             * @enum {string}
             */
            role: "admin" | "contributor" | "viewer";
        };
        /**
         * UserUpdate
         * @description Changes to a user; omitted fields stay as they are.
         */
        UserUpdate: {
            /** Isactive */
            isActive?: boolean | null;
            /** Password */
            password?: string | null;
            /** Role */
            role?: ("admin" | "contributor" | "viewer") | null;
        };
        /** ValidationError */
        ValidationError: {
            /** Context */
            ctx?: Record<string, never>;
            /** Input */
            input?: unknown;
            /** Location */
            loc: (string | number)[];
            /** Message */
            msg: string;
            /** Error Type */
            type: string;
        };
        /**
         * VerificationBlockPublic
         * @description The verifier's result (pipeline answers).
         */
        VerificationBlockPublic: {
            /** Checks */
            checks: components["schemas"]["CheckPublic"][];
            /** Passed */
            passed: boolean;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "verification";
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    backfillOntologyEmbeddings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_BackfillResult_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The ontology is building already */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    statelessChat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StatelessChatRequest"];
            };
        };
        responses: {
            /** @description The answer's events as Server-Sent Events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        data: string;
                        /** @enum {string} */
                        event: "chart" | "chunk" | "clear_streaming" | "done" | "error" | "tool_call";
                    };
                };
            };
            /** @description The conversation is malformed, the ontology not ready, or none was named while the caller has no default and not exactly one ready ontology */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description A chat answer of yours is already streaming */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No language model is configured */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LoginInput"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_LoginResult_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many sign-in attempts */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_UserPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    session: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_SessionPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getChart: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chart_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_ChartPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getChartImage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chart_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The chart's image. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/png": unknown;
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    agentServerChat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentServerChatRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_AgentServerAnswer_"];
                };
            };
            /** @description Not exactly one of ontologyId/datasetId, the ontology is not ready, the thread is about another source, or the SQL asked for was refused (SQL_POLICY_VIOLATION) or failed (QUERY_FAILED) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such ontology, dataset or thread of yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The query took too long (RUNNER_TIMEOUT) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description A chat answer of yours is already streaming, or too many of your queries are running */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    agentServerChatStream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentServerChatRequest"];
            };
        };
        responses: {
            /** @description The request's events as Server-Sent Events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": "{\"stage\":\"planning\"}",
                     *       "event": "status",
                     *       "id": "1"
                     *     }
                     */
                    "text/event-stream": {
                        data: string;
                        /** @enum {string} */
                        event: "done" | "error" | "result" | "status";
                        id: string;
                    };
                };
            };
            /** @description Not exactly one of ontologyId/datasetId, the ontology is not ready, the thread is about another source, or the SQL asked for was refused (SQL_POLICY_VIOLATION) or failed (QUERY_FAILED) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No such ontology, dataset or thread of yours */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The query took too long (RUNNER_TIMEOUT) */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description A chat answer of yours is already streaming, or too many of your queries are running */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listConnections: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_ConnectionPublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createConnection: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConnectionCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_ConnectionPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                connection_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_ConnectionPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                connection_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    updateConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                connection_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConnectionUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_ConnectionPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description An upload's connection: rename only */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    testConnection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                connection_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_ConnectionTestResult_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listChats: {
        parameters: {
            query?: {
                ontologyId?: string | null;
                page?: number;
                pageSize?: number;
                search?: string | null;
                sortBy?: "updatedAt" | "createdAt" | "name";
                sortOrder?: "asc" | "desc";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_PageOf_ChatPublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    createChat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_ChatWithMessages_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description That provider is not enabled here */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getChat: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chat_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_ChatWithMessages_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteChat: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chat_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    updateChat: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chat_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_ChatPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description That provider is not enabled here */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    listMessages: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path: {
                chat_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_PageOf_MessagePublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    sendMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chat_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_MessagePair_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description No language model can answer the chat */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chat_id: string;
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_MessagePublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    cancelMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chat_id: string;
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_RunPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The run has already finished */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    streamMessageEvents: {
        parameters: {
            query?: {
                /** @description Resume after this event id. */
                after?: number;
            };
            header?: {
                /** @description The id of the last event received: the stream resumes after it. */
                "Last-Event-ID"?: number;
            };
            path: {
                chat_id: string;
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run's events as Server-Sent Events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": "{\"chunk\":\"Houston\"}",
                     *       "event": "message_chunk",
                     *       "id": "2"
                     *     }
                     */
                    "text/event-stream": {
                        data: string;
                        /** @enum {string} */
                        event: "chart" | "clarification_requested" | "clear_streaming" | "llm_call_end" | "llm_call_start" | "message_chunk" | "message_complete" | "message_error" | "message_start" | "phase_artifact" | "phase_end" | "phase_start" | "preference_auto_saved" | "preference_suggested" | "step_complete" | "step_start" | "text" | "token_update" | "tool_call" | "tool_end" | "tool_error" | "tool_result" | "tool_start";
                        id: string;
                    };
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    regenerateMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chat_id: string;
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_MessagePair_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The answer is still generating, or not an answer */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description No language model can answer the chat */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getMessageReport: {
        parameters: {
            query?: {
                format?: "json" | "html";
            };
            header?: never;
            path: {
                chat_id: string;
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report: JSON, or with `format=html` one self-contained HTML file (an attachment). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_ReportPublic_"];
                    "text/html": string;
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description CONFLICT: the message is a question, or an answer that is not complete. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    streamMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description The id of the last event received: the stream resumes after it. */
                "Last-Event-ID"?: number;
            };
            path: {
                chat_id: string;
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run's events as Server-Sent Events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": "{\"chunk\":\"Houston\"}",
                     *       "event": "message_chunk",
                     *       "id": "2"
                     *     }
                     */
                    "text/event-stream": {
                        data: string;
                        /** @enum {string} */
                        event: "chart" | "clarification_requested" | "clear_streaming" | "llm_call_end" | "llm_call_start" | "message_chunk" | "message_complete" | "message_error" | "message_start" | "phase_artifact" | "phase_end" | "phase_start" | "preference_auto_saved" | "preference_suggested" | "step_complete" | "step_start" | "text" | "token_update" | "tool_call" | "tool_end" | "tool_error" | "tool_result" | "tool_start";
                        id: string;
                    };
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The message is claimed already, or answered */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description An answer of yours is already being generated */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No language model is configured */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listMessageTraces: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chat_id: string;
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_LlmTracePublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    listPreferences: {
        parameters: {
            query?: {
                ontologyId?: string | null;
                scope?: "global" | "ontology" | "all";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_PreferencePublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    savePreference: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PreferenceCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_PreferencePublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    clearPreferences: {
        parameters: {
            query?: {
                ontologyId?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deletePreference: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                preference_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    updatePreference: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                preference_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PreferenceUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_PreferencePublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    streamMessageById: {
        parameters: {
            query?: never;
            header?: {
                /** @description The id of the last event received: the stream resumes after it. */
                "Last-Event-ID"?: number;
            };
            path: {
                message_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["StreamRequest"] | null;
            };
        };
        responses: {
            /** @description The run's events as Server-Sent Events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": "{\"chunk\":\"Houston\"}",
                     *       "event": "message_chunk",
                     *       "id": "2"
                     *     }
                     */
                    "text/event-stream": {
                        data: string;
                        /** @enum {string} */
                        event: "chart" | "clarification_requested" | "clear_streaming" | "llm_call_end" | "llm_call_start" | "message_chunk" | "message_complete" | "message_error" | "message_start" | "phase_artifact" | "phase_end" | "phase_start" | "preference_auto_saved" | "preference_suggested" | "step_complete" | "step_start" | "text" | "token_update" | "tool_call" | "tool_end" | "tool_error" | "tool_result" | "tool_start";
                        id: string;
                    };
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The message is claimed already, or answered */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description An answer of yours is already being generated */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No language model is configured */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listDatasets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_DatasetPublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    uploadDataset: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["Body_uploadDataset"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_DatasetPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteDataset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getDatasetSchema: {
        parameters: {
            query?: {
                sampleRows?: number;
            };
            header?: never;
            path: {
                dataset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_dict_str__Any__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listGroups: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_GroupPublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createGroup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GroupCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_GroupPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict: the name is another group's */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                group_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_GroupPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                group_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    updateGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                group_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GroupUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_GroupPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict: the name is another group's */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    listGroupMembers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                group_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_GroupMemberPublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    setGroupMembers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                group_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GroupMembersInput"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_GroupMemberPublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The members changed at the same time */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
        };
    };
    setDefaultLlmProvider: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DefaultProviderUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_LlmProvidersPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description That provider is not enabled here */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    listLlmProviders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_LlmProvidersPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    setDefaultOntology: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DefaultOntologyUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_UserPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    listOntologies: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_OntologyPublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createOntology: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OntologyCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_OntologyPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getOntology: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_OntologyPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteOntology: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    streamOntologyBuildEvents: {
        parameters: {
            query?: {
                /** @description Resume after this event id. */
                after?: number;
            };
            header?: {
                /** @description The id of the last event received: the stream resumes after it. */
                "Last-Event-ID"?: number;
            };
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The build's events as Server-Sent Events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": "{\"ontologyId\":\"…\",\"status\":\"ready\",\"datasetCount\":3,\"relationshipCount\":2}",
                     *       "event": "build_complete",
                     *       "id": "2"
                     *     }
                     */
                    "text/event-stream": {
                        data: string;
                        /** @enum {string} */
                        event: "build_complete" | "build_error" | "build_start";
                        id: string;
                    };
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    compilePlan: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CompileInput"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_CompileOutput_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getOntologyDataset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_DatasetDetail_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getOntologyGraph: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_Graph_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    findJoinPaths: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JoinPathsInput"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_JoinPath__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    rebuildOntology: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_OntologyPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The ontology is building already */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    searchOntology: {
        parameters: {
            query: {
                k?: number;
                q: string;
            };
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_SearchResult_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    listOntologyShares: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_SharePublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    createOntologyShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ShareCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_SharePublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Shared with this user or group already */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteOntologyShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                ontology_id: string;
                share_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getOntologySuggestions: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                ontology_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_SuggestionPublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    runQuery: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QueryInput"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_QueryOutput_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_QueryRecordPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    listSemanticModels: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_list_SemanticModelSummary__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createSemanticModel: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SemanticModelCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_SemanticModelPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getSemanticModel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                model_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_SemanticModelPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteSemanticModel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                model_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    updateSemanticModel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                model_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SemanticModelUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_SemanticModelPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    regenerateSemanticModel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                model_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_SemanticModelRegenerated_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description Too many of your queries running or waiting */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The database could not be reached or opened (CONNECTION_FAILED) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getLlmSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_LlmSettingsPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateLlmSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OpenAISettingsUpdate"] | components["schemas"]["AnthropicSettingsUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_LlmSettingsPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_PageOf_UserPublic__"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_UserPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict: email taken, or no active admin left */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    getUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_UserPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    deleteUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict: email taken, or no active admin left */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UserUpdate"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Envelope_UserPublic_"];
                };
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Conflict: email taken, or no active admin left */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    signOutUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Validation error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    statelessChatV1: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StatelessChatRequest"];
            };
        };
        responses: {
            /** @description The answer's events as Server-Sent Events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        data: string;
                        /** @enum {string} */
                        event: "chart" | "chunk" | "clear_streaming" | "done" | "error" | "tool_call";
                    };
                };
            };
            /** @description The conversation is malformed, the ontology not ready, or none was named while the caller has no default and not exactly one ready ontology */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not signed in */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Permission missing */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Request body over the size limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
            /** @description A chat answer of yours is already streaming */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description No language model is configured */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
        };
    };
}
