package main

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds"
)

func (a *app) createConnectorCmd() *cobra.Command {
	var (
		conn        connFlags
		name        string
		externalID  string
		replication string
	)
	cmd := &cobra.Command{
		Use:   "create-connector <type> --hosted URL",
		Short: "Create a connector on the hosted service and print its id",
		Long: `create-connector hands a credentials object to the hosted service, which keeps
it, and prints the new connector's id on stdout, for --connector-id. The
credentials come from --credentials or the environment, as in direct mode, and
are checked against the kind before anything is sent; they are never printed.
The connector belongs to --external-user-id (default $` + envExternalUser + `).

` + exitHelp,
		Example: `  export TRIBUTARY_CLIENT_ID=... TRIBUTARY_CLIENT_SECRET=...
  id=$(tributary create-connector zendesk-support --hosted https://api.example.com \
    --credentials zendesk.json --external-user-id customer-42)
  tributary exec zendesk-support tickets list --hosted https://api.example.com --connector-id "$id"

  # Intercom needs a replication start date
  tributary create-connector intercom --hosted https://api.example.com --external-user-id customer-42 \
    --replication-config '{"start_date": "2024-01-01T00:00:00Z"}'`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeTypeEntity(nil),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			kind := args[0]
			if _, err := kinds.Catalogue(kind); err != nil {
				return err
			}
			if conn.hosted == "" {
				return usageErr(cmd, "create-connector needs --hosted URL")
			}
			creds, err := a.loadCredentials(kind, conn.credentials)
			if err != nil {
				return err
			}
			var rc map[string]any
			if replication != "" {
				b, err := a.readArg("--replication-config", replication)
				if err != nil {
					return usageErr(cmd, "%v", err)
				}
				if err := decodeJSON(string(b), &rc); err != nil {
					return usageErr(cmd, "--replication-config is not a JSON object: %v", err)
				}
			}
			if err := kinds.CheckReplicationConfig(kind, rc); err != nil {
				// A validation error of this call, not of the credentials.
				return &tributary.Error{Kind: kind, Param: "replication_config", Err: tributary.ErrInvalidParams, Message: errMessage(err)}
			}
			if err := kinds.CheckCredentials(kind, creds.values); err != nil {
				return err
			}
			if externalID == "" {
				externalID = a.env(envExternalUser)
			}
			tr := http.DefaultTransport.(*http.Transport).Clone()
			defer tr.CloseIdleConnections()
			client, err := a.hostedClient(cmd, &conn, externalID, a.options(&conn, &pageCounter{}, tr))
			if err != nil {
				return err
			}
			id, err := client.CreateConnector(cmd.Context(), hosted.CreateRequest{ConnectorType: kind, Name: name, Credentials: creds.values, ReplicationConfig: rc})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(a.stdout, id)
			return err
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&conn.hosted, "hosted", "", "the hosted service's base URL")
	fs.StringVar(&conn.hostedPaths, "hosted-paths", "default", "the hosted service's path set: default or integrations")
	fs.StringVar(&conn.credentials, "credentials", "", "JSON file with the kind's credentials object (- for stdin); default: the environment")
	fs.StringVar(&name, "name", "", "a display name for the connector")
	fs.StringVar(&externalID, "external-user-id", "", "the end user who owns the connector (default $"+envExternalUser+")")
	fs.StringVar(&replication, "replication-config", "", "the kind's replication_config as JSON (Intercom: start_date)")
	fs.BoolVarP(&conn.verbose, "verbose", "v", false, "log every HTTP attempt on stderr (secrets redacted)")
	conn.retries = tributary.DefaultRetryPolicy.MaxRetries
	return cmd
}

// errMessage is the message of a library error, or its text.
func errMessage(err error) string {
	var te *tributary.Error
	if errors.As(err, &te) && te.Message != "" {
		return te.Message
	}
	return err.Error()
}
