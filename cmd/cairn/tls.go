package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// The files --tls-self-signed keeps in the data directory, named as
// PostgreSQL names its own there.
const (
	selfSignedCert = "server.crt"
	selfSignedKey  = "server.key"
)

// selfSignedValidity is how long a generated certificate is valid.
const selfSignedValidity = 10 * 365 * 24 * time.Hour

// boolFlag is the flag.Value of a boolean option (one whose arg is ""):
// given alone (--tls-required) it is "true"; a value, from the flag or the
// environment, is what strconv.ParseBool takes.
type boolFlag struct{ dst *string }

func (b boolFlag) String() string {
	if b.dst == nil {
		return ""
	}
	return *b.dst
}

func (b boolFlag) Set(s string) error {
	if _, err := strconv.ParseBool(s); err != nil {
		return fmt.Errorf("%q is not a boolean (true, false, 1, 0)", s)
	}
	*b.dst = s
	return nil
}

func (b boolFlag) IsBoolFlag() bool { return true }

// isTrue reads a boolean option's value ("" is false). Flags are checked
// as they are parsed and environment values by checkTLSFlags, so a value
// that is not a boolean never gets here.
func isTrue(s string) bool {
	v, _ := strconv.ParseBool(s)
	return v
}

// tlsOn reports whether the server speaks TLS.
func tlsOn(cfg config) bool { return cfg.tlsCert != "" || isTrue(cfg.tlsSelfSigned) }

// checkTLSFlags checks the TLS flags fit together: a certificate needs
// its key, --tls-self-signed excludes both, --tls-required needs one of
// them, and each boolean is a boolean.
func checkTLSFlags(cfg config) error {
	for _, b := range []struct{ name, v string }{
		{"--tls-self-signed", cfg.tlsSelfSigned}, {"--tls-required", cfg.tlsRequired}, {"--insecure-listen", cfg.insecureListen},
	} {
		if _, err := strconv.ParseBool(b.v); b.v != "" && err != nil {
			return fmt.Errorf("%s %q: want true or false", b.name, b.v)
		}
	}
	switch {
	case (cfg.tlsCert == "") != (cfg.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together: give both (or --tls-self-signed)")
	case cfg.tlsCert != "" && isTrue(cfg.tlsSelfSigned):
		return errors.New("--tls-self-signed and --tls-cert exclude each other")
	case isTrue(cfg.tlsRequired) && !tlsOn(cfg):
		return errors.New("--tls-required needs a certificate: --tls-cert and --tls-key, or --tls-self-signed")
	}
	return nil
}

// loadTLS is the servers' TLS configuration (nil without TLS): the
// certificate of --tls-cert and --tls-key, or with --tls-self-signed the
// one kept in the data directory, made on the first start for hosts,
// the addresses the server listens on.
func loadTLS(cfg config, hosts []string, log *slog.Logger) (*tls.Config, error) {
	certFile, keyFile := cfg.tlsCert, cfg.tlsKey
	switch {
	case isTrue(cfg.tlsSelfSigned):
		certFile, keyFile = filepath.Join(cfg.dataDir, selfSignedCert), filepath.Join(cfg.dataDir, selfSignedKey)
		made, err := ensureSelfSigned(certFile, keyFile, hosts)
		if err != nil {
			return nil, fmt.Errorf("--tls-self-signed: %w", err)
		}
		if made {
			log.Info("made a self-signed TLS certificate", "cert", certFile, "key", keyFile)
		}
	case certFile == "":
		return nil, nil
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	if time.Now().After(pair.Leaf.NotAfter) {
		log.Warn("the TLS certificate has expired: clients that verify it will refuse it", "cert", certFile, "not_after", pair.Leaf.NotAfter)
	}
	for _, h := range hosts {
		if specificHost(h) && pair.Leaf.VerifyHostname(h) != nil {
			log.Warn("the TLS certificate does not name a host the server listens on: clients with sslmode=verify-full will refuse it", "cert", certFile, "host", h)
		}
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// ensureSelfSigned makes a self-signed certificate for localhost and
// hosts, with a new ECDSA P-256 key, unless certFile and keyFile both
// exist already (then they are kept, whatever they hold). It reports
// whether it made them. The key is written readable by the owner only.
func ensureSelfSigned(certFile, keyFile string, hosts []string) (bool, error) {
	certThere, err := exists(certFile)
	if err != nil {
		return false, err
	}
	keyThere, err := exists(keyFile)
	if err != nil {
		return false, err
	}
	switch {
	case certThere && keyThere:
		return false, nil
	case certThere || keyThere:
		return false, fmt.Errorf("found only one of %s and %s: remove it to have both made anew, or supply the other", certFile, keyFile)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return false, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return false, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "cairn self-signed"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(selfSignedValidity),
		// Its own CA, so that clients can trust it as their root
		// (sslrootcert=server.crt) and verify the host name against it.
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, h := range hosts {
		ip := net.ParseIP(h)
		switch {
		case !specificHost(h):
			// All interfaces: no one name to put in.
		case ip != nil:
			if !slices.ContainsFunc(tmpl.IPAddresses, ip.Equal) {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			}
		case !slices.Contains(tmpl.DNSNames, h):
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return false, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(keyFile), 0o700); err != nil {
		return false, err
	}
	if err := writeNew(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return false, err
	}
	if err := writeNew(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return false, err
	}
	return true, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// writeNew writes a file that must not exist yet, synced to disk.
func writeNew(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// specificHost reports whether a listen address's host names one host,
// not all interfaces ("", 0.0.0.0, ::).
func specificHost(h string) bool {
	ip := net.ParseIP(h)
	return h != "" && (ip == nil || !ip.IsUnspecified())
}

// listenHosts are the hosts of the addresses the server listens on.
func listenHosts(addrs ...string) []string {
	var hosts []string
	for _, a := range addrs {
		if h, _, err := net.SplitHostPort(a); err == nil && !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return hosts
}
