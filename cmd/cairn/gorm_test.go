package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// GORM's models for TestGORM: an agent with soft deletes and a unique
// name, its memories (JSONB metadata, an indexed score) and tags through
// a join table.
type gormAgent struct {
	ID        uint         `gorm:"primaryKey"`
	Name      string       `gorm:"uniqueIndex;size:100"`
	Kind      string       `gorm:"default:coder"`
	Memories  []gormMemory `gorm:"foreignKey:AgentID"`
	CreatedAt time.Time
	DeletedAt gorm.DeletedAt `gorm:"index"`
}

type gormMemory struct {
	ID      uint `gorm:"primaryKey"`
	AgentID uint
	Task    string    `gorm:"not null"`
	Meta    string    `gorm:"type:jsonb"`
	Score   float64   `gorm:"index"`
	Tags    []gormTag `gorm:"many2many:gorm_memory_tags;joinForeignKey:MemoryID;joinReferences:TagID"`
}

type gormTag struct {
	ID    uint
	Label string `gorm:"unique"`
}

// gormMemoryV2 is gormMemory after a change of the model: a shorter
// task column (AutoMigrate alters it with USING task::varchar(500)) and
// a new column.
type gormMemoryV2 struct {
	ID      uint `gorm:"primaryKey"`
	AgentID uint
	Task    string  `gorm:"not null;size:500"`
	Meta    string  `gorm:"type:jsonb"`
	Score   float64 `gorm:"index"`
	Extra   string
}

func (gormAgent) TableName() string    { return "gorm_agents" }
func (gormMemory) TableName() string   { return "gorm_memories" }
func (gormMemoryV2) TableName() string { return "gorm_memories" }
func (gormTag) TableName() string      { return "gorm_tags" }

// TestGORM runs GORM (gorm.io/gorm over its pgx driver) against a server:
// AutoMigrate twice (the second must find nothing to change, reading the
// schema back through information_schema and pg_catalog), then again after
// the model changed (ALTER COLUMN ... TYPE varchar(500) USING, ADD
// COLUMN), then the ORM: creates with associations, a JSONB filter,
// preloads, soft delete, a rolled-back transaction, column types.
func TestGORM(t *testing.T) {
	ts := startServer(t, "")
	host, port, _ := strings.Cut(ts.Addr, ":")
	var statements []string
	db, err := gorm.Open(postgres.Open(fmt.Sprintf("host=%s port=%s user=cairn dbname=cairn sslmode=disable", host, port)),
		&gorm.Config{Logger: statementLog{&statements}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AutoMigrate(&gormAgent{}, &gormMemory{}, &gormTag{}); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	statements = nil
	if err := db.AutoMigrate(&gormAgent{}, &gormMemory{}, &gormTag{}); err != nil {
		t.Fatalf("second AutoMigrate: %v", err)
	}
	for _, s := range statements {
		if verb := strings.Fields(s)[0]; !strings.EqualFold(verb, "SELECT") {
			t.Errorf("second AutoMigrate changed the schema: %s", s)
		}
	}
	if err := db.AutoMigrate(&gormMemoryV2{}); err != nil {
		t.Fatalf("AutoMigrate of the changed model: %v", err)
	}

	a := gormAgent{Name: "claude"}
	must(t, db.Create(&a).Error)
	must(t, db.Create(&gormMemory{AgentID: a.ID, Task: "fix", Meta: `{"repo": "cairn"}`, Score: 1, Tags: []gormTag{{Label: "bug"}}}).Error)
	must(t, db.Create(&gormMemory{AgentID: a.ID, Task: "refactor", Meta: `{"repo": "other"}`, Score: 2}).Error)
	if err := db.Create(&gormAgent{Name: "claude"}).Error; !errors.Is(err, gorm.ErrDuplicatedKey) && !strings.Contains(fmt.Sprint(err), "23505") {
		t.Errorf("duplicate name: %v, want 23505", err)
	}
	var ms []gormMemory
	must(t, db.Where("meta->>'repo' = ?", "cairn").Preload("Tags").Find(&ms).Error)
	if len(ms) != 1 || ms[0].Task != "fix" || len(ms[0].Tags) != 1 || ms[0].Tags[0].Label != "bug" {
		t.Errorf("JSONB filter with tags: %+v", ms)
	}
	var got gormAgent
	must(t, db.Preload("Memories").First(&got, "name = ?", "claude").Error)
	if got.Kind != "coder" || len(got.Memories) != 2 {
		t.Errorf("agent with memories: %+v", got)
	}
	must(t, db.Delete(&got).Error)
	var n, all int64
	must(t, db.Model(&gormAgent{}).Count(&n).Error)
	must(t, db.Unscoped().Model(&gormAgent{}).Count(&all).Error)
	if n != 0 || all != 1 {
		t.Errorf("soft delete: %d visible, %d in all, want 0 and 1", n, all)
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&gormAgent{Name: "codex"}).Error; err != nil {
			return err
		}
		return errors.New("roll back")
	})
	must(t, db.Unscoped().Model(&gormAgent{}).Count(&all).Error)
	if err == nil || all != 1 {
		t.Errorf("rolled-back transaction: %v, %d agents, want 1", err, all)
	}
	cols, err := db.Migrator().ColumnTypes(&gormMemoryV2{})
	must(t, err)
	var desc []string
	for _, c := range cols {
		nullable, _ := c.Nullable()
		length, _ := c.Length()
		desc = append(desc, fmt.Sprintf("%s %s %d %v", c.Name(), c.DatabaseTypeName(), length, nullable))
	}
	want := "id int8 64 false, agent_id int8 64 true, task varchar 500 false, meta jsonb 0 true, score numeric 0 true, extra text 9223372036854775807 true"
	if strings.Join(desc, ", ") != want {
		t.Errorf("column types:\n got %s\nwant %s (PostgreSQL 15's)", strings.Join(desc, ", "), want)
	}
}

// statementLog is a GORM logger keeping the SQL GORM runs.
type statementLog struct{ statements *[]string }

func (l statementLog) LogMode(logger.LogLevel) logger.Interface    { return l }
func (statementLog) Info(context.Context, string, ...interface{})  {}
func (statementLog) Warn(context.Context, string, ...interface{})  {}
func (statementLog) Error(context.Context, string, ...interface{}) {}
func (l statementLog) Trace(_ context.Context, _ time.Time, fc func() (string, int64), _ error) {
	sql, _ := fc()
	*l.statements = append(*l.statements, sql)
}
