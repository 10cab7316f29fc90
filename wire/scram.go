package wire

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgproto3/v2"

	"github.com/cairn-db/cairn/sql/catalog"
	"github.com/cairn-db/cairn/sql/pgerr"
)

// SCRAM-SHA-256 password authentication (RFC 5802 and 7677), as
// PostgreSQL does it: the client proves it knows the password without
// sending it, and the server proves it knows it too. As in PostgreSQL the
// user name inside the SCRAM messages is ignored (the startup message's
// is used). Over TLS, SCRAM-SHA-256-PLUS is offered too: with it the
// client's proof also covers the hash of the certificate it saw
// (tls-server-end-point channel binding), so a man in the middle that
// terminated TLS with a certificate of its own cannot relay the exchange.

// The SASL mechanisms, with and without channel binding.
const (
	scramSHA256     = "SCRAM-SHA-256"
	scramSHA256Plus = "SCRAM-SHA-256-PLUS"
)

// scramExchange runs the SASL exchange against the verifier keys k and
// returns nil when the client's proof matches them (28P01 otherwise).
func scramExchange(ex AuthExchange, user string, s catalog.SCRAMKeys) error {
	cbind := ex.ChannelBinding()
	mechanisms := []string{scramSHA256}
	if cbind != nil {
		mechanisms = []string{scramSHA256Plus, scramSHA256} // PostgreSQL's order
	}
	if err := ex.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: mechanisms}); err != nil {
		return err
	}
	msg, err := ex.Receive(pgproto3.AuthTypeSASL)
	if err != nil {
		return err
	}
	initial, ok := msg.(*pgproto3.SASLInitialResponse)
	if !ok {
		return protocolErr("expected SASL initial response")
	}
	plus := initial.AuthMechanism == scramSHA256Plus && cbind != nil
	if initial.AuthMechanism != scramSHA256 && !plus {
		return protocolErr("client selected an invalid SASL authentication mechanism")
	}
	gs2, clientFirstBare, clientNonce, err := parseClientFirst(string(initial.Data), plus, cbind != nil)
	if err != nil {
		return err
	}
	if plus {
		gs2 += string(cbind) // what the client-final-message's c= must carry
	}
	serverNonce := make([]byte, 18)
	if _, err := rand.Read(serverNonce); err != nil {
		return err
	}
	nonce := clientNonce + base64.StdEncoding.EncodeToString(serverNonce)
	serverFirst := fmt.Sprintf("r=%s,s=%s,i=%d", nonce, base64.StdEncoding.EncodeToString(s.Salt), s.Iterations)
	if err := ex.Send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)}); err != nil {
		return err
	}
	if msg, err = ex.Receive(pgproto3.AuthTypeSASLContinue); err != nil {
		return err
	}
	resp, ok := msg.(*pgproto3.SASLResponse)
	if !ok {
		return protocolErr("expected SASL response")
	}
	withoutProof, proof, err := parseClientFinal(string(resp.Data), gs2, nonce)
	if err != nil {
		return err
	}
	authMessage := clientFirstBare + "," + serverFirst + "," + withoutProof
	signature := catalog.HMACSHA256(s.StoredKey, authMessage)
	if len(proof) != len(signature) {
		return passwordFailed(user)
	}
	clientKey := make([]byte, len(proof))
	for i := range proof {
		clientKey[i] = proof[i] ^ signature[i]
	}
	stored := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(stored[:], s.StoredKey) != 1 {
		return passwordFailed(user)
	}
	final := "v=" + base64.StdEncoding.EncodeToString(catalog.HMACSHA256(s.ServerKey, authMessage))
	return ex.Send(&pgproto3.AuthenticationSASLFinal{Data: []byte(final)})
}

// parseClientFirst reads "n,,n=user,r=nonce": the GS2 header, the message
// without it, and the client's nonce. plus is set when the client chose
// SCRAM-SHA-256-PLUS, and the header must then name tls-server-end-point
// binding ("p=tls-server-end-point"); offered is set when the server
// offered it, and a client that says it could bind but thinks the server
// cannot ("y") is then refused, as a downgrade. The errors are
// PostgreSQL's.
func parseClientFirst(msg string, plus, offered bool) (gs2, bare, nonce string, err error) {
	parts := strings.SplitN(msg, ",", 3)
	if len(parts) != 3 {
		return "", "", "", protocolErr("malformed SCRAM client-first-message")
	}
	switch cb, named := strings.CutPrefix(parts[0], "p="); {
	case named && !plus:
		return "", "", "", malformedSCRAM("The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.")
	case named && cb != "tls-server-end-point":
		return "", "", "", protocolErr(fmt.Sprintf("unsupported SCRAM channel-binding type \"%s\"", cb))
	case named:
	case parts[0] != "n" && parts[0] != "y":
		return "", "", "", malformedSCRAM("Unexpected channel-binding flag \"" + parts[0] + "\".")
	case plus:
		return "", "", "", malformedSCRAM("The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data.")
	case parts[0] == "y" && offered:
		return "", "", "", pgerr.New(pgerrcode.ProtocolViolation, "SCRAM channel binding negotiation error").
			WithDetail("The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding.")
	}
	gs2 = parts[0] + "," + parts[1] + ","
	bare = parts[2]
	for _, attr := range strings.Split(bare, ",") {
		if v, ok := strings.CutPrefix(attr, "r="); ok && v != "" {
			return gs2, bare, v, nil
		}
	}
	return "", "", "", protocolErr("SCRAM client-first-message has no nonce")
}

// parseClientFinal reads "c=<gs2 base64>,r=<nonce>,p=<proof>": the message
// without its proof, and the proof, checking the channel binding and the
// nonce. gs2 is what the channel binding must be: the GS2 header, and
// with SCRAM-SHA-256-PLUS the certificate's hash after it.
func parseClientFinal(msg, gs2, nonce string) (withoutProof string, proof []byte, err error) {
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return "", nil, protocolErr("SCRAM client-final-message has no proof")
	}
	withoutProof = msg[:i]
	if proof, err = base64.StdEncoding.DecodeString(msg[i+3:]); err != nil {
		return "", nil, protocolErr("malformed SCRAM proof")
	}
	var binding, gotNonce string
	for _, attr := range strings.Split(withoutProof, ",") {
		if v, ok := strings.CutPrefix(attr, "c="); ok {
			binding = v
		} else if v, ok := strings.CutPrefix(attr, "r="); ok {
			gotNonce = v
		}
	}
	cb, err := base64.StdEncoding.DecodeString(binding)
	if err != nil || !bytes.Equal(cb, []byte(gs2)) {
		return "", nil, protocolErr("SCRAM channel binding check failed")
	}
	if gotNonce != nonce {
		return "", nil, protocolErr("SCRAM nonce does not match")
	}
	return withoutProof, proof, nil
}

func protocolErr(msg string) error {
	return pgerr.New(pgerrcode.ProtocolViolation, "%s", msg)
}

func malformedSCRAM(detail string) error {
	return pgerr.New(pgerrcode.ProtocolViolation, "malformed SCRAM message").WithDetail("%s", detail)
}

func passwordFailed(user string) error {
	return pgerr.New(pgerrcode.InvalidPassword, "password authentication failed for user \"%s\"", user)
}
